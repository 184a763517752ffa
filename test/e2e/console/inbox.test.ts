import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, waitForText, type TestBrowser } from '../../support/browser';
import { CONSOLE, eventually, injectInbound } from '../../support/messaging';

/**
 * The chat agent in the web console: a customer asks for a person (the simulated agent hands
 * over), a team member finds the conversation in the Inbox, replies under their name and hands
 * it back, and the agent answers the customer's next message. Needs `npm run build:web` first.
 */
jest.setTimeout(120_000);

describe('the chat agent inbox in a browser', () => {
  const { api, ws } = useTestApi({ worker: true, env: { AGENT_BURST_QUIET_MS: '300' }, workspace: { chatAgent: true } });
  let browser: TestBrowser;
  let base: string;

  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const transcript = async (conversationId: string) =>
    (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`).set(CONSOLE)).body.items as { role: string; kind: string; text: string }[];
  const modelTurns = async (conversationId: string) => (await transcript(conversationId)).filter((t) => t.role === 'model' && t.kind === 'turn');

  it('takes a held conversation from the inbox, replies as a named team member, and hands it back to the agent', async () => {
    const page = browser.page;
    const { conversation_id: conversationId } = await injectInbound(api, ws.workspaceId, { from: '+919811100091', text: 'Please let me talk to a person' });
    await eventually(async () => (await modelTurns(conversationId)).length === 1, 'the hand-over reply', 60_000);

    // The inbox entry is written just after the reply (the hold follows the turn's send).
    await eventually(async () => {
      const listed = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/agent-inbox`).set(CONSOLE);
      return (listed.body.items as { conversation_id: string }[]).some((i) => i.conversation_id === conversationId);
    }, 'the inbox entry');
    await page.goto(`${base}/console/w/${ws.workspaceId}/inbox`);
    await waitForText(page, 'main', (t) => t.includes('+919811100091') && t.includes('The customer asked for a person.'));
    await checkPage(page, 'agent-inbox');
    await page.fill('#inbox-name', 'Priya');
    await page.fill(`#inbox-${conversationId}-text`, 'Hi, Priya here: how can I help?');
    await page.click('button:has-text("Send as Priya")');
    await eventually(async () => (await transcript(conversationId)).some((t) => t.role === 'human' && t.text === 'Hi, Priya here: how can I help?'), 'the team reply');
    // Answered: no longer waiting, still held.
    await waitForText(page, 'main', (t) => t.includes('Nobody is waiting'));
    await page.selectOption('#inbox-filter', 'held');
    await waitForText(page, 'main', (t) => t.includes('held by the team, Priya'));
    await page.click('button:has-text("Hand back to the agent")');
    await page.selectOption('#inbox-filter', 'all');
    await waitForText(page, 'main', (t) => t.includes('back with the agent'));

    await injectInbound(api, ws.workspaceId, { from: '+919811100091', text: 'hello' });
    await eventually(async () => (await modelTurns(conversationId)).length === 2, 'the agent answering again', 60_000);
    await page.goto(`${base}/console/w/${ws.workspaceId}/conversations/${conversationId}`);
    await waitForText(page, 'main', (t) => t.includes('Team member (Priya)') && t.includes('Hello! How can I help you today?'));
    await checkPage(page, 'agent-conversation');
  });
});
