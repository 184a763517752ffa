import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { conversationIdFor, conversationsCollection } from '../../../src/conversations/store';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { webhookEndpoints } from '../../../src/webhooks/endpoints';
import { useTestApi } from '../../support/app';
import { checkPage as checkBrowserPage, launchBrowser, screenshot, waitForText, type TestBrowser } from '../../support/browser';
import { CONSOLE_AUTH, callEndStored, pollCall, scriptCallee } from '../../support/calls';
import { bearer } from '../../support/http';
import { injectInbound } from '../../support/messaging';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * The web console in Debian's chromium, against the real API and worker on free ports: log
 * in, find and re-read a call, rotate a webhook secret, issue a key, read a conversation,
 * log out. Every page is screenshotted (.test-data/screenshots/), checked with axe-core (no
 * serious or critical violation) and tabbed through (every control reachable by keyboard).
 * Needs `npm run build:web` first (npm test does it).
 */
jest.setTimeout(120_000);

describe('the web console in a browser', () => {
  const { api, ws } = useTestApi({ worker: true });
  let browser: TestBrowser;
  let base: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
  });

  const page = () => browser.page;
  const open = async (path: string) => {
    await page().goto(`${base}/console${path}`);
    await page().waitForSelector('main h1');
  };

  const checkPage = (name: string) => checkBrowserPage(page(), name);
  /** The page as a phone shows it too (390 px wide), then back to the desktop width. */
  const narrowScreenshot = async (name: string) => {
    await page().setViewportSize({ width: 390, height: 844 });
    await screenshot(page(), `${name}-390`);
    await page().setViewportSize({ width: 1280, height: 900 });
  };

  it('logs in with the console token into an HttpOnly, SameSite=Strict cookie that no script, storage or URL holds', async () => {
    await page().goto(`${base}/console/`);
    await page().waitForSelector('#token');
    await checkPage('login');
    await page().fill('#token', 'not-the-token');
    await page().press('#token', 'Enter');
    await waitForText(page(), '[role=alert]', (t) => t.includes('That is not the console token.'));

    await page().fill('#token', api.config.CONSOLE_TOKEN!);
    await page().press('#token', 'Enter');
    await page().waitForSelector('button:has-text("Log out")');
    const cookies = await browser.context.cookies();
    expect(cookies).toEqual([expect.objectContaining({ name: 'console_session', path: '/console', httpOnly: true, sameSite: 'Strict', secure: false })]);
    expect(cookies[0]!.value).not.toContain(api.config.CONSOLE_TOKEN);
    // Runs in the page: what a script there can read.
    const seen = (await page().evaluate('({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length, url: location.href })')) as Record<string, unknown>;
    expect(seen.cookie).toBe('');
    expect(seen.local).toBe(0);
    expect(seen.session).toBe(0);
    expect(seen.url).not.toContain(api.config.CONSOLE_TOKEN);
  });

  it('finds a call by number and by id, shows its timeline, transcript and typed result, and re-reads it', async () => {
    await scriptCallee(api, ws, '+919811100081', { ring_seconds: 0, seconds_per_turn: 0.1, answers: { rating: 'I would give it a 4', on_time: 'No, it came late' } });
    const placed = await request(api.server)
      .post('/api/v1/calls')
      .set(bearer(ws.key))
      .send({ to: '+919811100081', capture: {
          fields: [
            { label: 'Rating', type: 'rating', required: true },
            { label: 'On time', key: 'on_time', type: 'yes_no', required: true },
          ],
        },
      });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    await pollCall(api, ws.key, callId, (c) => c.result.state === 'ready');

    await open(`/w/${ws.workspaceId}/calls`);
    await page().fill('#call-query', '+919811100081');
    await page().click('button:has-text("Find")');
    await page().waitForSelector(`[data-testid=find-results] a[href$="/calls/${callId}"]`);
    await checkPage('calls-by-number');

    await page().fill('#call-query', callId);
    await page().click('button:has-text("Find")');
    // Said in words, the code kept in data-* and the tooltip (issue 35 §7).
    await waitForText(page(), '[data-testid=result-state]', (t) => t === 'Read');
    expect(page().url()).toBe(`${base}/console/w/${ws.workspaceId}/calls/${callId}`);
    expect(await page().textContent('[data-testid=call-status]')).toBe('Ended');
    expect(await page().getAttribute('[data-testid=call-status]', 'data-status')).toBe('completed');
    expect(await page().textContent('[data-testid=call-readings]')).toBe('Read once');
    expect(await page().locator('.timeline li.done').count()).toBe(4);
    expect(await page().textContent('.transcript')).toContain('I would give it a 4');
    // A yes/no answer reads No, not `false`.
    expect(await page().locator('table:has(caption:has-text("Captured fields")) td').allTextContents()).toEqual(['4', 'No']);
    expect(await page().locator('.transcript .role').allTextContents()).toEqual(expect.arrayContaining(['AI agent', 'Customer']));
    await checkPage('call');
    await narrowScreenshot('call');

    await page().click('button:has-text("Re-read the call")');
    await waitForText(page(), '[data-testid=reread-requested]', (t) => t.includes('Reading 2 requested'));
    // The page polls: the second reading shows without a reload.
    await waitForText(page(), '[data-testid=call-readings]', (t) => t === 'Read twice');
    await screenshot(page(), 'call-reread');
  });

  it('sends a test ping, shows deliveries with attempts, and rotates the secret, showing the new one once', async () => {
    const created = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/webhooks`).set(CONSOLE_AUTH).send({ url: receiver.url('/console-e2e') });
    expect(created.status).toBe(201);
    const first: string = created.body.secret;

    await open(`/w/${ws.workspaceId}/webhooks`);
    expect(await page().content()).not.toContain(first);
    await page().click('button:has-text("Send test ping")');
    await receiver.waitFor((r) => r.path === '/console-e2e');
    await waitForText(page(), 'section.endpoint tbody tr td:nth-child(3)', (t) => t === 'succeeded');
    await page().click('section.endpoint tbody tr button:has-text("Attempts")');
    await waitForText(page(), 'section[aria-label="Delivery attempts"] li', (t) => t.includes('#1') && t.includes('200'));
    await checkPage('webhooks');

    await page().click('section.endpoint tbody tr button:has-text("Replay")');
    await receiver.waitFor((r) => r.path === '/console-e2e', 2);
    await page().waitForSelector('section.endpoint tbody tr:nth-child(2)');
    expect(await page().locator('section.endpoint tbody tr td:nth-child(2)').allTextContents()).toEqual(['replay', 'test']);

    // Rotation asks first in the page (a modal <dialog>), as a campaign's launch and cancel do.
    await page().click('section.endpoint button:has-text("Rotate secret")');
    await page().getByRole('dialog', { name: 'Issue a new signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    await page().waitForSelector('.shown-once input.secret');
    const shown = await page().inputValue('.shown-once input.secret');
    const stored = await webhookEndpoints(api.db).findOne({ _id: created.body.webhook_id });
    expect(shown).toBe(stored!.secret);
    expect(shown).not.toBe(first);
    expect(stored!.previous_secret).toBe(first);
    await waitForText(page(), 'section.endpoint p', (t) => t.includes('the previous secret also signs until'));
    await checkPage('webhooks-new-secret');

    await page().click('button:has-text("I have copied it")');
    expect(await page().content()).not.toContain(shown);
    await page().reload();
    await page().waitForSelector('section.endpoint');
    expect(await page().content()).not.toContain(shown);
  });

  it('creates an API key with chosen scopes and shows it once; it works on the public API', async () => {
    await open(`/w/${ws.workspaceId}/keys`);
    await page().waitForSelector('fieldset label.scope');
    await page().fill('#key-name', 'Agents reader');
    await page().check('label.scope:has-text("agents:read") input');
    await page().click('button:has-text("Create key")');
    await page().waitForSelector('.shown-once input.secret');
    const key = await page().inputValue('.shown-once input.secret');
    expect(key).toMatch(/^ork_test_[A-Za-z0-9]{40}$/);
    expect((await request(api.server).get('/api/v1/agents').set(bearer(key))).status).toBe(200);
    expect((await request(api.server).get('/api/v1/campaigns').set(bearer(key))).status).toBe(403);
    await checkPage('keys-new-key');
    await page().click('button:has-text("I have copied it")');
    expect(await page().content()).not.toContain(key);
  });

  it('sets an agent’s voice settings and a number’s team line, shows a refused field, and fits a phone (issue 26)', async () => {
    await open(`/w/${ws.workspaceId}/agents`);
    await page().click(`details.agent summary:has-text("${ws.agentId}")`);
    const field = (name: string) => `[id="${ws.agentId}-${name}"]`;
    const saveAgent = `form[aria-label^="Settings of"] button[type=submit]`;
    await page().fill(field('language'), 'english');
    await page().click(saveAgent);
    await waitForText(page(), 'details.agent [role=alert]', (t) => t.includes('voice.language: expected a BCP 47 language tag, e.g. en, hi-IN or ta'));
    await checkPage('agents-refused');

    await page().fill(field('language'), 'ta-IN');
    await page().fill(field('greeting'), 'Vanakkam! Thank you for calling.');
    await page().fill(field('idle_seconds'), '25');
    await page().click(saveAgent);
    const agentPath = `/console/v1/workspaces/${ws.workspaceId}/agents/${ws.agentId}`;
    const saved = async () => (await request(api.server).get(agentPath).set(CONSOLE_AUTH)).body;
    for (let i = 0; i < 120 && (await saved()).voice.language !== 'ta-IN'; i++) await page().waitForTimeout(250);
    expect((await saved()).voice).toMatchObject({ language: 'ta-IN', greeting: 'Vanakkam! Thank you for calling.', idle_seconds: 25 });

    const digits = ws.phoneNumber.slice(1);
    await page().fill(`[id="number-${digits}-team"]`, '022 4000 4545');
    await page().click(`form[aria-label="Number ${ws.phoneNumber}"] button[type=submit]`);
    const numberTeamLine = async () =>
      ((await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/numbers`).set(CONSOLE_AUTH)).body.items as { number: string; team_line: string | null }[]).find(
        (n) => n.number === ws.phoneNumber,
      )!.team_line;
    for (let i = 0; i < 120 && (await numberTeamLine()) !== '+912240004545'; i++) await page().waitForTimeout(250);
    expect(await numberTeamLine()).toBe('+912240004545');

    // Saving reloads the agents, each form starting again from what was kept: open it to look.
    if (!(await page().locator('details.agent[open]').count())) await page().click(`details.agent summary:has-text("${ws.agentId}")`);
    await checkPage('agents');
    await narrowScreenshot('agents');
    // Nothing wider than a phone's screen at 390 px.
    await page().setViewportSize({ width: 390, height: 844 });
    expect(await page().evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page().setViewportSize({ width: 1280, height: 900 });
  });

  it('lists workspaces', async () => {
    await open('/workspaces');
    await page().waitForSelector(`td:has-text("${ws.workspaceId}")`);
    await checkPage('workspaces');
  });

  it('shows a conversation and its transcript, updating as turns arrive', async () => {
    const inbound = await injectInbound(api, ws.workspaceId, { from: '+919812300081', text: 'Is my order on its way?' });
    await open(`/w/${ws.workspaceId}/conversations`);
    await page().click(`a[title="${inbound.conversation_id}"]`);
    await waitForText(page(), '.transcript', (t) => t.includes('Is my order on its way?'));
    // The business's template message and a team member's reply, each labelled as who sent it.
    const sent = await request(api.server)
      .post('/api/v1/messages')
      .set(bearer(ws.key))
      .send({ to: '+919812300081', template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'] } });
    expect(sent.status).toBe(201);
    const reply = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/conversations/${inbound.conversation_id}/turns`)
      .set(CONSOLE_AUTH)
      .send({ role: 'human', text: 'Ravi here: it leaves today.', turn_id: 'e2e-reply' });
    expect(reply.status).toBe(201);
    await waitForText(page(), '.transcript', (t) => t.includes('Ravi here'));
    expect(await page().locator('.transcript .role').allTextContents()).toEqual(['Customer', 'Business', 'Team member']);
    await checkPage('conversation');
    await narrowScreenshot('conversation');
    await injectInbound(api, ws.workspaceId, { from: '+919812300081', text: 'Thanks!' });
    await waitForText(page(), '.transcript', (t) => t.includes('Thanks!'));
  });

  it('finds a call by a local-format number, named by the person; a conversation by name, led by the person; conversations search and page (issue 35)', async () => {
    // The workspace knows this number as Meera Nair: the call leads with her name (issue 35 §7).
    await matchOrCreateContact(api.db, { _id: ws.workspaceId, country: 'IN' }, { name: 'Meera Nair', phone: '+919811100091' }, new Date());
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '9811100091' });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    // 26 customers: one more than a page.
    const start = Date.now() - 3_600_000;
    const customers = Array.from({ length: 26 }, (_, i) => {
      const phone = `+9198111002${String(i).padStart(2, '0')}`;
      const at = new Date(start + i * 1000);
      return {
        _id: conversationIdFor(ws.workspaceId, 'whatsapp', phone.slice(1)),
        tenant_id: ws.workspaceId,
        channel: 'whatsapp' as const,
        thread_key: phone.slice(1),
        agent_id: null,
        status: 'open' as const,
        customer: { phone, name: `Pooja ${i}` },
        message_count: 1,
        preview: `Hello from Pooja ${i}`,
        last_turn_at: at,
        acquisition: null,
        recent_message_ids: [],
        started_event: true,
        created_at: at,
        updated_at: at,
      };
    });
    await conversationsCollection(api.db).insertMany(customers);

    await open(`/w/${ws.workspaceId}/calls`);
    await page().fill('#call-query', '098111 00091');
    await page().click('button:has-text("Find")');
    await page().waitForSelector(`[data-testid=find-results] a[href$="/calls/${callId}"]`);
    await page().waitForSelector(`[data-testid=recent-calls] tr[data-call="${callId}"]`);
    expect(await page().locator('[data-testid=recent-calls] tbody tr').count()).toBe(1);
    expect(await page().textContent(`[data-testid=recent-calls] tr[data-call="${callId}"] [data-testid=call-person]`)).toBe('Meera Nair');
    expect(await page().textContent(`[data-testid=find-results] a[href$="/calls/${callId}"]`)).toBe('Meera Nair (+919811100091)');
    // The row's id is in the link's tooltip, not its text.
    expect(await page().getAttribute(`[data-testid=recent-calls] tr[data-call="${callId}"] a[href$="/calls/${callId}"]`, 'title')).toBe(callId);
    await checkPage('calls-find-local-number');
    await narrowScreenshot('calls-find-local-number');

    await page().fill('#call-query', 'pooja 7');
    await page().click('button:has-text("Find")');
    await waitForText(page(), '[data-testid=find-results]', (t) => t.includes('Pooja 7'));
    expect(await page().locator('[data-testid=find-results] li').count()).toBe(1);
    await page().click('[data-testid=find-results] a:has-text("Pooja 7")');
    // The conversation leads with the person; its id is a detail below.
    await waitForText(page(), 'main h1', (t) => t.startsWith('Pooja 7'));
    expect(await page().textContent('main h1')).not.toContain('con_');
    expect(await page().textContent('[data-testid=conversation-id]')).toBe(customers[7]!._id);
    await checkPage('conversation-by-name');
    await narrowScreenshot('conversation-by-name');

    // A phone gets 10 a page (each a card of six lines), a desktop 25.
    await page().setViewportSize({ width: 390, height: 844 });
    await open(`/w/${ws.workspaceId}/conversations`);
    await page().waitForSelector('[data-testid=conversations]');
    expect(await page().locator('[data-testid=conversations] tbody tr').count()).toBe(10);
    const phoneHeight = (await page().evaluate('document.documentElement.scrollHeight')) as number;
    await screenshot(page(), 'conversations-page-390');
    await page().setViewportSize({ width: 1280, height: 900 });
    await open(`/w/${ws.workspaceId}/conversations`);
    await page().waitForSelector('[data-testid=conversations]');
    expect(await page().locator('[data-testid=conversations] tbody tr').count()).toBe(25);
    await checkPage('conversations-page');
    await page().click('button:has-text("Older conversations")');
    await waitForText(page(), '[data-testid=conversations]', (t) => t.includes('Pooja 0'));
    expect(await page().locator('[data-testid=conversations] tbody tr').count()).toBeGreaterThan(25);

    await page().fill('#conversation-query', 'POOJA 1');
    await page().click('button:has-text("Search")');
    // Pooja 1 and Pooja 10 to 19, most recent first.
    await waitForText(page(), '[data-testid=conversations]', (t) => !t.includes('Pooja 25'));
    expect(await page().locator('[data-testid=conversations] tbody tr').count()).toBe(11);
    await page().fill('#conversation-query', '+91 98111 00207');
    await page().click('button:has-text("Search")');
    await waitForText(page(), '[data-testid=conversations]', (t) => !t.includes('Pooja 19'));
    expect(await page().locator('[data-testid=conversations] tbody tr').count()).toBe(1);
    await checkPage('conversations-search');
    await narrowScreenshot('conversations-search');
    // Reported, not asserted (layout on a shared machine): the issue measured 7,342 px with every conversation on one page.
    console.log(`conversations page at 390 px: ${phoneHeight} px tall with 10 rows`);
  });

  it('lands on the overview: today’s calls by name and how they ended, messages, campaigns, spend against the budget, what needs attention (issue 35 §9)', async () => {
    const to = '+919811100095';
    await scriptCallee(api, ws, to, { ring_seconds: 0, seconds_per_turn: 0.1 });
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '09811100095', details: { Name: 'Farah Khan' }, purpose: 'a delivery tomorrow' });
    expect(placed.status).toBe(201);
    await pollCall(api, ws.key, placed.body.call_id, (c) => c.status === 'completed');
    // The day's tally (the page's and the API's count below) follows the call's ending write.
    await callEndStored(api, placed.body.call_id);
    // A message that failed today: something for "Needs attention".
    await outboundMessagesCollection(api.db).insertOne({
      _id: `wamid.e2e.${ws.workspaceId}`,
      tenant_id: ws.workspaceId,
      sender_id: ws.senderId,
      to: '+919811100095',
      conversation_id: conversationIdFor(ws.workspaceId, 'whatsapp', '919811100095'),
      transcript_message_id: 'msg_e2e',
      billed: null,
      status: 'failed',
      status_at: new Date(),
      created_at: new Date(),
      kind: 'text',
      template: null,
      metadata: {},
      provider: 'simulator',
    });

    // The console's first page is the overview of the first workspace.
    await page().goto(`${base}/console/`);
    await page().waitForURL(/\/console\/w\/[^/]+\/overview$/);
    await open(`/w/${ws.workspaceId}/overview`);
    await page().waitForSelector(`[data-testid=overview-calls] tr[data-call="${placed.body.call_id}"]`);
    const overview = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/overview`).set(CONSOLE_AUTH)).body;
    expect(await page().textContent('[data-testid=calls-today]')).toBe(String(overview.calls.ended));
    expect(await page().textContent(`[data-testid=overview-calls] tr[data-call="${placed.body.call_id}"]`)).toContain('Farah Khan');
    expect(await page().textContent(`[data-testid=overview-calls] tr[data-call="${placed.body.call_id}"]`)).toContain('a delivery tomorrow');
    // The chart (uPlot, the console's charts library) and the outcomes in words, never codes.
    await page().waitForSelector('figure.chart canvas');
    const outcomes = await page().locator('figure.bars:has(figcaption:has-text("How today")) th').allTextContents();
    expect(outcomes.length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => /_/.test(o))).toEqual([]);
    expect(await page().textContent('[data-testid=budget]')).toContain(`${overview.budget.calls_used} of ${overview.budget.calls_limit}`);
    expect(await page().textContent('[data-testid=attention] li[data-code=messages_failed]')).toBe('Warning: 1 WhatsApp message sent today failed to deliver.');
    expect(await page().getAttribute('[data-testid=attention] li[data-code=messages_failed] a', 'href')).toBe(`/console/w/${ws.workspaceId}/conversations`);
    await checkPage('overview');
    await page().setViewportSize({ width: 390, height: 844 });
    // The chart redraws for the narrower screen; nothing is wider than the phone.
    await page().waitForFunction('document.documentElement.scrollWidth <= 390');
    await checkPage('overview-390');
    await page().setViewportSize({ width: 1280, height: 900 });
  });

  it('folds the navigation behind Menu on a phone (issue 35 §11)', async () => {
    await page().setViewportSize({ width: 390, height: 844 });
    await open(`/w/${ws.workspaceId}/calls`);
    const menu = page().locator('button.menu-toggle');
    expect(await menu.isVisible()).toBe(true);
    expect(await page().locator('nav#sections').isVisible()).toBe(false);
    expect(await page().locator('header select').isVisible()).toBe(false);
    // The header is one line: the issue measured 260 px of a 390 px screen.
    const folded = (await page().locator('header').boundingBox())!.height;
    expect(folded).toBeLessThan(80);
    console.log(`header at 390 px, folded: ${Math.round(folded)} px`);
    await checkPage('calls-nav-folded-390');

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await page().waitForSelector('nav#sections a:has-text("Overview")', { state: 'visible' });
    expect(await page().locator('header select').isVisible()).toBe(true);
    await checkPage('calls-nav-open-390');
    await page().click('nav#sections a:has-text("Overview")');
    await page().waitForURL(/\/overview$/);
    // A new page folds the menu again.
    await page().waitForSelector('nav#sections', { state: 'hidden' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');

    // On a desktop there is no Menu: the sections show as they did.
    await page().setViewportSize({ width: 1280, height: 900 });
    expect(await menu.isVisible()).toBe(false);
    expect(await page().locator('nav#sections').isVisible()).toBe(true);
  });

  it('logs out: the session ends server-side and the page asks for the token again', async () => {
    await open(`/w/${ws.workspaceId}/webhooks`);
    const [cookie] = await browser.context.cookies();
    await page().click('button:has-text("Log out")');
    await page().waitForSelector('#token');
    expect(await browser.context.cookies()).toEqual([]);
    const replayed = await request(api.server).get('/console/v1/workspaces').set('Cookie', `console_session=${cookie!.value}`);
    expect(replayed.status).toBe(401);
  });
});
