import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { conversationIdFor } from '../../../src/conversations';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, screenshot, seriousA11yViolations, waitForText, type TestBrowser } from '../../support/browser';
import { cloudApiEnv, cloudCustomers, cloudWhatsApp, type CloudCustomers } from '../../support/cloudCustomer';
import { FakeGraph } from '../../support/fakeGraph';
import { CONSOLE, eventually } from '../../support/messaging';
import { ORDER_TOOL_PARAMETERS, OrderDesk } from '../../support/orderDesk';

/**
 * Issue 33's "done when", in Debian's chromium against the real API and worker, the WhatsApp
 * Cloud API fake and a business's order-status endpoint on loopback: the workspace uploads a
 * returns policy and declares its order tool in the console; a customer writes (the signed
 * Cloud API webhook) a question whose answer uses both; asks for a person; a team member
 * answers from the console inbox under her name and hands back; the agent answers again.
 * At each step: what the customer receives (the fake's messages) and what the console shows
 * (the trail naming the document and the tool). Needs `npm run build:web` first.
 */
jest.setTimeout(180_000);

const APP_SECRET = 'journey-app-secret';
const CUSTOMER = '919811177001';
const RETURNS_POLICY = [
  '# Returns',
  'Items can be returned within 30 days of delivery: write to us and a courier collects them.',
  '',
  '## Exchanges',
  'An exchange for another size or colour is free; the new item ships when the courier collects the old one.',
].join('\n');

describe('a customer, the chat agent with a document and a business tool, and the team in the console inbox', () => {
  const graph = new FakeGraph();
  const desk = new OrderDesk();
  let graphUrl = '';
  let deskUrl = '';
  beforeAll(async () => {
    graphUrl = await graph.start();
    deskUrl = await desk.start();
  });
  afterAll(async () => {
    await graph.stop();
    await desk.stop();
  });
  const { api, ws } = useTestApi(() => ({
    env: { ...cloudApiEnv(graphUrl, APP_SECRET), AGENT_BURST_QUIET_MS: '300' },
    worker: { whatsapp: cloudWhatsApp(graphUrl, 5_000) },
    workspace: { chatAgent: true },
  }));

  let browser: TestBrowser;
  let base: string;
  let customers: CloudCustomers;
  beforeAll(async () => {
    customers = await cloudCustomers(api.db, ws.senderId, APP_SECRET);
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });
  afterAll(async () => {
    await browser?.close();
  });

  let ids = 0;
  /**
   * The customer writes: the Cloud API's webhook, signed with the app secret. A person reads the
   * answer before writing again, and the Cloud API's timestamps are whole seconds: written in the
   * same second as the answer, a message would sort before it in the transcript.
   */
  async function customerWrites(text: string): Promise<void> {
    if (ids > 0) await new Promise((resolve) => setTimeout(resolve, 1_100));
    await customers.writes(api.server, CUSTOMER, `wamid.journey.${ids++}`, text);
  }
  /** What the customer has received on WhatsApp, in order. */
  const received = () => graph.requests.filter((r) => r.body.type === 'text' && r.body.to === CUSTOMER).map((r) => (r.body.text as { body: string }).body);
  const receivedCount = async (n: number, what: string) => eventually(async () => (received().length >= n ? received() : null), what, 60_000);
  const conversationId = () => conversationIdFor(ws.workspaceId, 'whatsapp', CUSTOMER);
  const transcript = async () =>
    (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId()}/transcript`).set(CONSOLE)).body.items as {
      role: string;
      kind: string;
      text: string;
      author_name: string | null;
    }[];
  const page = () => browser.page;
  const pageWidth = () => page().evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
  async function atPhoneWidth(name: string): Promise<void> {
    await page().setViewportSize({ width: 390, height: 844 });
    await screenshot(page(), `${name}-390`);
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    expect(await seriousA11yViolations(page())).toEqual([]);
    await page().setViewportSize({ width: 1280, height: 900 });
  }

  it('answers from a document and a business tool, hands over to a named team member, and takes the conversation back', async () => {
    // The business sets up: its returns policy, and its order-status endpoint as a tool.
    await page().goto(`${base}/console/w/${ws.workspaceId}/knowledge`);
    await page().waitForSelector('h1:has-text("Knowledge")');
    await page().setInputFiles('#knowledge-file', { name: 'returns.md', mimeType: 'text/markdown', buffer: Buffer.from(RETURNS_POLICY) });
    await page().fill('#knowledge-name', 'Returns policy');
    await page().click('button:has-text("Upload document")');
    await waitForText(page(), 'table', (t) => t.includes('Returns policy'));
    await page().click('nav a:has-text("Agent tools")');
    await page().waitForSelector('h1:has-text("Agent tools")');
    await page().fill('#tool-name', 'order_status');
    await page().fill('#tool-description', "Look up where a customer's order is by its order number.");
    await page().fill('#tool-url', deskUrl);
    await page().fill('#tool-parameters', JSON.stringify(ORDER_TOOL_PARAMETERS));
    await page().click('button:has-text("Declare tool")');
    await page().waitForSelector('.shown-once');
    desk.secret = await page().inputValue('.shown-once input');
    expect(desk.secret).toMatch(/^whsec_/);
    await page().click('button:has-text("I have copied it")');

    // One question, two tools in one step: the order's status and the returns policy.
    await customerWrites('Where is my order 1234, and can I return it?');
    expect(await receivedCount(1, 'the agent’s answer')).toEqual([
      'Order 1234 was delivered on Monday 23 November.\nItems can be returned within 30 days of delivery: write to us and a courier collects them. (from our "Returns policy")',
    ]);
    expect(desk.refused).toEqual([]);
    expect(desk.received).toEqual([{ tool: 'order_status', callId: expect.stringMatching(/^tcall_/) as string, args: { order_id: '1234' } }]);
    const trail = (await transcript()).filter((t) => t.kind === 'trail').map((t) => t.text);
    expect(trail).toEqual([
      // The business tool's row names it and its latency once.
      expect.stringMatching(/^Tool: Ran order_status: answered 200 in \d+ ms$/),
      expect.stringMatching(/^Lookup search_knowledge: Searched the knowledge documents for "Where is my order 1234, and can I return it\?": used "Returns policy" \(kdoc_[0-9a-f]{24}\) \(\d+ ms\)$/),
    ]);

    // A person, please: the agent says a colleague will reply and the conversation waits in the inbox.
    await customerWrites('Can I talk to a person please?');
    expect((await receivedCount(2, 'the hand-over reply'))[1]).toBe('I have asked a colleague to take over: a person from our team will reply here shortly.');
    await page().click('nav a:has-text("Inbox")');
    await waitForText(page(), 'main', (t) => t.includes(`+${CUSTOMER}`) && t.includes('The customer asked for a person.'), 60_000);
    await checkPage(page(), 'journey-inbox');
    await atPhoneWidth('journey-inbox');
    await page().fill('#inbox-name', 'Priya');
    await page().fill(`#inbox-${conversationId()}-text`, 'Hi Kiran, Priya here: I have booked the courier for your return.');
    await page().click('button:has-text("Send as Priya")');
    expect((await receivedCount(3, 'the team member’s reply'))[2]).toBe('Hi Kiran, Priya here: I have booked the courier for your return.');
    await waitForText(page(), 'main', (t) => t.includes('Nobody is waiting'));
    await page().selectOption('#inbox-filter', 'held');
    await waitForText(page(), 'main', (t) => t.includes('held by the team, Priya'));
    await page().click('button:has-text("Hand back to the agent")');
    await page().selectOption('#inbox-filter', 'all');
    await waitForText(page(), 'main', (t) => t.includes('back with the agent'));

    // The agent answers again, from the document.
    await customerWrites('Thanks! Could I exchange it for another size instead?');
    expect((await receivedCount(4, 'the agent answering again'))[3]).toBe(
      'An exchange for another size or colour is free; the new item ships when the courier collects the old one. (from our "Returns policy")',
    );
    expect(received()).toHaveLength(4);
    expect(desk.received).toHaveLength(1);

    // The console's conversation: every turn, and the trail naming the tool and the document.
    await page().goto(`${base}/console/w/${ws.workspaceId}/conversations/${conversationId()}`);
    const shown = await waitForText(page(), 'ol.transcript', (t) => t.includes('collects the old one'));
    for (const line of [
      'Where is my order 1234, and can I return it?',
      'Tool: Ran order_status: answered 200 in',
      'used "Returns policy"',
      'Team member (Priya)',
      'Hi Kiran, Priya here: I have booked the courier for your return.',
      'Could I exchange it for another size instead?',
    ])
      expect(shown).toContain(line);
    await checkPage(page(), 'journey-conversation');
    await atPhoneWidth('journey-conversation');
  });
});
