import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { launchBrowser, logIn, screenshot, seriousA11yViolations, waitForText, type TestBrowser } from '../../support/browser';
import { CONSOLE_AUTH, pollCall, scriptCallee } from '../../support/calls';
import { insertContacts, insertVoiceCampaignDraft, zoneOpenAt } from '../../support/campaigns';
import { bearer } from '../../support/http';
import { eventually, injectInbound } from '../../support/messaging';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * Every page of the web console, with data on it, at a desktop's width (1280 px) and a
 * phone's (390 px): each is screenshotted as `walk-<page>-<width>.png` under
 * .test-data/screenshots/, must not scroll sideways on the phone (the document no wider than
 * the window), and must have no serious or critical axe-core violation at either width. The
 * answers behind each page are held to their response schemas too (NODE_ENV=test,
 * api/responseCheck.ts). Needs `npm run build:web` first (npm test does it).
 */
jest.setTimeout(240_000);

/** What a script in the page reads: the document's width against the window's. */
declare const document: { documentElement: { scrollWidth: number } };
declare const innerWidth: number;

const WIDTHS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
] as const;

describe('a walk through every console page at 1280 px and 390 px', () => {
  let browser: TestBrowser;
  let base: string;
  let receiver: WebhookReceiver;
  // Before the API's hooks: the page, which polls, closes before the API it talks to.
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
  });
  const { api, ws } = useTestApi({ worker: true });
  const seeded = { callId: '', conversationId: '', whatsappCampaign: '', voiceCampaign: '', ticketId: '', listId: '' };

  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    receiver = await startWebhookReceiver();
    const console = (method: 'post' | 'get', path: string) => request(api.server)[method](`/console/v1/workspaces/${ws.workspaceId}${path}`).set(CONSOLE_AUTH);

    // A finished call with a transcript and a read result.
    await scriptCallee(api, ws, '+919811100091', { ring_seconds: 0, seconds_per_turn: 0.1, answers: { rating: 'I would give it a 4', on_time: 'Yes it was' } });
    const call = await request(api.server)
      .post('/api/v1/calls')
      .set(bearer(ws.key))
      .send({
        to: '+919811100091',
        capture: {
          fields: [
            { label: 'Rating', type: 'rating', required: true },
            { label: 'On time', key: 'on_time', type: 'yes_no', required: true },
          ],
        },
      });
    expect(call.status).toBe(201);
    seeded.callId = call.body.call_id;

    // A conversation: the customer writes, the business answers with a template, a team member replies.
    const inbound = await injectInbound(api, ws.workspaceId, { from: '+919812300091', text: 'Is my order on its way? It was due on Friday.', name: 'Asha Rao' });
    seeded.conversationId = inbound.conversation_id;
    expect((await request(api.server).post('/api/v1/messages').set(bearer(ws.key)).send({ to: '+919812300091', template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'] } })).status).toBe(201);
    expect((await console('post', `/conversations/${inbound.conversation_id}/turns`).send({ role: 'human', text: 'Ravi here: it leaves today.', turn_id: 'walk-reply' })).status).toBe(201);

    // A WhatsApp campaign launched to six people, and a call campaign still a draft.
    const contacts = await insertContacts(api.db, ws.workspaceId, 6);
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(ws.key))
      .send({
        name: 'Diwali order updates',
        audience: { kind: 'contact_ids', contact_ids: contacts.map((c) => c._id) },
        template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] },
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
      });
    expect(created.status).toBe(201);
    seeded.whatsappCampaign = created.body.campaign_id;
    const launched = await console('post', `/campaigns/${seeded.whatsappCampaign}/launch`).send({ expected_version: created.body.version });
    expect(launched.status).toBe(200);
    seeded.voiceCampaign = (await insertVoiceCampaignDraft(api.db, ws.workspaceId, { contactIds: contacts.map((c) => c._id), agentId: ws.agentId }))._id;

    // A dues subscriber (its first due is raised at once) and a webhook endpoint with a delivered ping.
    const subscribed = await request(api.server)
      .post('/api/v1/apps/dues/subscribers')
      .set(bearer(ws.key))
      .send({ name: 'Meera Iyer', phone: '+919712300091', amount: 1250, plan_name: 'Monthly tiffin', start_date: '2031-01-10' });
    expect(subscribed.status).toBe(201);
    const hook = await console('post', '/webhooks').send({ url: receiver.url('/walk'), description: 'Order system' });
    expect(hook.status).toBe(201);
    expect((await console('post', `/webhooks/${hook.body.webhook_id}/test`)).status).toBe(202);

    // A ticket from the public API, and an uploaded list of three people (one row without a number).
    const ticket = await request(api.server)
      .post('/api/v1/tickets')
      .set(bearer(ws.key))
      .send({ subject: 'Parcel arrived damaged', description: 'The box was crushed and two jars broke.', requester_name: 'Kiran Shah' });
    expect(ticket.status).toBe(201);
    seeded.ticketId = ticket.body.ticket_id;
    const csv = ['Phone,Name,Order Number,City', '+919811100701,Asha Rao,A-17,Pune', ',No number,A-18,Pune', '+919811100703,Ravi Kumar,B-2,Delhi'].join('\n');
    const list = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/lists`)
      .query({ name: 'March orders' })
      .set(CONSOLE_AUTH)
      .set('Content-Type', 'text/csv')
      .send(csv);
    expect(list.status).toBe(201);
    seeded.listId = list.body.list_id;

    await pollCall(api, ws.key, seeded.callId, (c) => c.result.state === 'ready');
    await eventually(async () => {
      const c = (await console('get', `/campaigns/${seeded.whatsappCampaign}`)).body;
      return c.status === 'completed';
    }, 'the WhatsApp campaign to complete', 60_000);

    browser = await launchBrowser();
  });

  const page = () => browser.page;

  /**
   * The page at both widths: screenshot, no sideways scroll on the phone, axe-core clean.
   * Failures are collected per width so one run names every page and width at fault.
   */
  async function walk(name: string): Promise<void> {
    const found: { width: number; scrollWidth?: number; violations: unknown[] }[] = [];
    for (const size of WIDTHS) {
      await page().setViewportSize(size);
      // A frame for the layout to settle at the new width (charts redraw on resize).
      await page().waitForTimeout(300);
      await screenshot(page(), `walk-${name}-${size.width}`);
      const widths = await page().evaluate(() => ({ scroll: document.documentElement.scrollWidth, window: innerWidth }));
      const unlabelled = size.width < 1000 ? await unlabelledCells() : [];
      found.push({
        width: size.width,
        ...(size.width < 1000 && widths.scroll > widths.window ? { scrollWidth: widths.scroll } : {}),
        ...(unlabelled.length ? { unlabelled } : {}),
        violations: await seriousA11yViolations(page()),
      });
    }
    await page().setViewportSize(WIDTHS[0]);
    expect({ name, found }).toEqual({ name, found: WIDTHS.map((s) => ({ width: s.width, violations: [] })) });
  }

  /**
   * The body cells of the page's tables (the bar charts' aside) whose `data-label`, the name a
   * phone shows before the value once the rows stack as cards, is not their column's header.
   */
  async function unlabelledCells(): Promise<string[]> {
    return page()
      .locator('main table:not(.bars table)')
      .evaluateAll((tables) =>
        tables.flatMap((table) => {
          const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
          return [...table.querySelectorAll('tbody tr')].flatMap((row) =>
            [...row.children].flatMap((cell, i) => (cell.getAttribute('data-label') === headers[i] ? [] : [`${table.querySelector('caption')?.textContent}: column ${headers[i]}`])),
          );
        }),
      );
  }

  /**
   * An in-page question (a modal <dialog>) at both widths: screenshot of the window (the
   * modal covers it), axe-core clean; then back to the desktop width.
   */
  async function walkDialog(name: string): Promise<void> {
    for (const size of WIDTHS) {
      await page().setViewportSize(size);
      await page().waitForTimeout(300);
      await screenshot(page(), `walk-${name}-${size.width}`, { fullPage: false });
      const widths = await page().evaluate(() => ({ scroll: document.documentElement.scrollWidth, window: innerWidth }));
      expect({ name, width: size.width, sideways: widths.scroll > widths.window, violations: await seriousA11yViolations(page()) }).toEqual({
        name,
        width: size.width,
        sideways: false,
        violations: [],
      });
    }
    await page().setViewportSize(WIDTHS[0]);
  }

  const open = async (path: string, ready: string, text?: string) => {
    await page().goto(`${base}/console${path}`);
    await page().waitForSelector('main h1');
    if (text) await waitForText(page(), ready, (t) => t.includes(text));
    else await page().waitForSelector(ready);
  };
  const at = (section: string) => `/w/${ws.workspaceId}/${section}`;

  it('the log-in page', async () => {
    await page().goto(`${base}/console/`);
    await page().waitForSelector('#token');
    await walk('login');
    await logIn(page(), base, api.config.CONSOLE_TOKEN!);
  });

  it('workspaces', async () => {
    await open('/workspaces', 'main table', ws.workspaceId);
    await walk('workspaces');
  });

  it('API keys', async () => {
    await open(at('keys'), 'main table');
    await walk('keys');
  });

  it('calls, and one call with its transcript and result', async () => {
    await open(at('calls'), 'main h1');
    await walk('calls');
    await open(`${at('calls')}/${seeded.callId}`, '[data-testid=result-state]', 'Read');
    // The reader's goal_met is yes, no or unclear (the generated type says so; the old hand-written one said boolean).
    const { goal_met: goalMet } = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/calls/${seeded.callId}`).set(CONSOLE_AUTH)).body.result;
    expect(['yes', 'no', 'unclear']).toContain(goalMet);
    // Said in words, the code in the tooltip (issue 35 §7).
    expect(await page().textContent('section[aria-label=Result] p')).toContain({ yes: 'Goal met', no: 'Goal not met', unclear: 'Unclear whether the goal was met' }[goalMet as string]);
    expect(await page().getAttribute('[data-testid=result-goal-met]', 'data-code')).toBe(goalMet);
    await walk('call');
  });

  it('conversations, and one transcript', async () => {
    // Conversations lead with the person; the id is the link's tooltip.
    await page().goto(`${base}/console${at('conversations')}`);
    await page().waitForSelector(`a[title="${seeded.conversationId}"]`);
    await walk('conversations');
    await open(`${at('conversations')}/${seeded.conversationId}`, '.transcript', 'Ravi here');
    await walk('conversation');
  });

  it('campaigns, a finished WhatsApp campaign, and a call campaign draft', async () => {
    await open(at('campaigns'), `tr[data-campaign="${seeded.whatsappCampaign}"] .status`, 'completed');
    await walk('campaigns');
    await open(`${at('campaigns')}/${seeded.whatsappCampaign}`, '[data-testid=campaign-status]', 'completed');
    await walk('campaign');
    await open(`${at('campaigns')}/${seeded.voiceCampaign}`, '[data-testid=campaign-status]', 'draft');
    await walk('campaign-voice');
  });

  it('cancelling a campaign asks in the page, as launch does, and keeping it changes nothing', async () => {
    await open(`${at('campaigns')}/${seeded.voiceCampaign}`, '[data-testid=campaign-status]', 'draft');
    // window.confirm would stop here: no dialog handler is registered, so a native one fails the test.
    await page().click('button:has-text("Cancel campaign")');
    const dialog = page().getByRole('dialog', { name: 'Cancel "Delivery check" for good?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Everyone not yet called is skipped');
    for (const size of WIDTHS) {
      await page().setViewportSize(size);
      await screenshot(page(), `walk-campaign-cancel-confirm-${size.width}`, { fullPage: false });
      expect({ width: size.width, violations: await seriousA11yViolations(page()) }).toEqual({ width: size.width, violations: [] });
    }
    await page().setViewportSize(WIDTHS[0]);
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'detached' });
    const kept = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${seeded.voiceCampaign}`).set(CONSOLE_AUTH);
    expect({ status: kept.body.status, version: kept.body.version }).toEqual({ status: 'draft', version: 1 });

    await page().click('button:has-text("Cancel campaign")');
    await dialog.getByRole('button', { name: 'Cancel campaign' }).click();
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'cancelled');
  });

  it('a new campaign', async () => {
    await open(`${at('campaigns')}/new`, '#campaign-name');
    await walk('campaign-new');
    // A call campaign's form: agent, purpose, script and questions instead of the template.
    await page().getByLabel('AI phone call').check();
    await page().waitForSelector('#campaign-agent');
    await walk('campaign-new-voice');
  });

  it('uploaded lists, and one list with its rows', async () => {
    await open(at('lists'), 'main', 'March orders');
    await walk('lists');
    await open(`${at('lists')}/${seeded.listId}`, 'main table', 'Ravi Kumar');
    await walk('list');
  });

  it('agents and numbers', async () => {
    await open(at('agents'), 'main', ws.phoneNumber);
    await walk('agents');
  });

  it('the chat agent inbox (nobody waiting)', async () => {
    await open(at('inbox'), 'main', 'Nobody is waiting');
    await walk('inbox');
  });

  it('tickets', async () => {
    await open(at('tickets'), 'main table', 'Parcel arrived damaged');
    await walk('tickets');
  });

  it('a new dues subscriber', async () => {
    await open(`${at('dues')}/new`, '#subscriber-name');
    await walk('subscriber-new');
  });

  it('dues', async () => {
    await open(at('dues'), 'table:has(caption:has-text("Dues")) tbody', 'Meera Iyer');
    await walk('dues');
  });

  it('webhooks, with a delivered ping and its attempts open', async () => {
    await open(at('webhooks'), 'section.endpoint tbody', 'succeeded');
    await walk('webhooks');
    await page().click('section.endpoint tbody tr button:has-text("Attempts")');
    await waitForText(page(), 'section[aria-label="Delivery attempts"] li', (t) => t.includes('200'));
    await walk('webhooks-attempts');
  });

  it('rotating a webhook secret asks in the page; keeping the secret changes nothing', async () => {
    await open(at('webhooks'), 'section.endpoint');
    const before = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/webhooks`).set(CONSOLE_AUTH)).body.items[0];
    await page().click('section.endpoint button:has-text("Rotate secret")');
    const dialog = page().getByRole('dialog', { name: 'Issue a new signing secret?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('keeps signing beside it for 24 hours');
    await walkDialog('webhooks-rotate-confirm');
    await dialog.getByRole('button', { name: 'Keep the current one' }).click();
    await dialog.waitFor({ state: 'detached' });
    const kept = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/webhooks`).set(CONSOLE_AUTH)).body.items[0];
    expect(kept.previous_secret_expires_at).toBe(before.previous_secret_expires_at);

    await page().click('section.endpoint button:has-text("Rotate secret")');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page().waitForSelector('.shown-once input.secret');
    await waitForText(page(), 'section.endpoint p', (t) => t.includes('the previous secret also signs until'));
    await page().click('button:has-text("I have copied it")');
  });

  it('a new key, shown once', async () => {
    await open(at('keys'), 'fieldset label.scope');
    await page().fill('#key-name', 'Walkthrough key');
    await page().check('label.scope:has-text("agents:read") input');
    await page().click('button:has-text("Create key")');
    await page().waitForSelector('.shown-once input.secret');
    await walk('keys-new-key');
    await page().click('button:has-text("I have copied it")');
  });

  it('revoking a key asks in the page; keeping it changes nothing', async () => {
    await open(at('keys'), 'main table');
    const keys = async () => (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/keys`).set(CONSOLE_AUTH)).body.items as { key_id: string; display_prefix: string; revoked_at: string | null }[];
    const target = (await keys()).find((k) => k.revoked_at === null && k.key_id !== ws.keyId)!;
    const revoke = page().getByRole('button', { name: `Revoke ${target.display_prefix}` });
    await revoke.click();
    const dialog = page().getByRole('dialog', { name: `Revoke ${target.display_prefix}… for good?` });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('cannot be restored');
    await walkDialog('keys-revoke-confirm');
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await keys()).find((k) => k.key_id === target.key_id)!.revoked_at).toBeNull();

    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'detached' });
    await eventually(async () => (await keys()).find((k) => k.key_id === target.key_id)!.revoked_at !== null, 'the key to be revoked', 30_000);
  });

  it('a page that does not exist', async () => {
    await page().goto(`${base}/console${at('nowhere')}`);
    await page().waitForSelector('main p');
    await walk('not-found');
  });
});
