import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { findCampaign } from '../../../src/campaigns/campaign';
import { callCollections } from '../../../src/calls/callStore';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, screenshot, seriousA11yViolations, waitForRows, waitForText, type TestBrowser } from '../../support/browser';
import { insertContacts } from '../../support/campaigns';
import { storedCall } from '../../support/storedRecords';

/**
 * The create flows in the web console, in Debian's chromium against the real API: empty pages
 * that say how to start, a WhatsApp and a call campaign and a dues subscriber created through
 * their forms (the server's refusals shown beside their fields first), and the recent calls
 * with their filters. Each page is checked at 1280 px and at 390 px (no sideways scrolling).
 * Needs `npm run build:web` first.
 */
jest.setTimeout(180_000);

describe('create flows in the web console', () => {
  let browser: TestBrowser;
  let base: string;
  afterAll(async () => {
    await browser?.close();
  });
  const { api, ws } = useTestApi();

  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });

  const page = () => browser.page;
  const open = async (path: string) => page().goto(`${base}/console/w/${ws.workspaceId}${path}`);
  const scrollWidth = (p: Page) => p.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);

  /** The page at 1280 px (screenshot, axe, every control reachable by Tab), then at 390 px: no wider than the phone, axe clean. */
  async function checkBothWidths(name: string): Promise<void> {
    await checkPage(page(), name);
    await page().setViewportSize({ width: 390, height: 844 });
    await screenshot(page(), `${name}-390`);
    expect({ name, width: await scrollWidth(page()) }).toEqual({ name, width: 390 });
    expect({ name, violations: await seriousA11yViolations(page()) }).toEqual({ name, violations: [] });
    await page().setViewportSize({ width: 1280, height: 900 });
  }

  const fieldError = (id: string) => page().locator(`#${id}-error`);

  it('an empty campaigns page says what a campaign is and starts one; the form shows the server’s refusals by their fields, then opens the draft', async () => {
    await open('/campaigns');
    const empty = page().getByRole('region', { name: 'No campaigns yet' });
    await empty.waitFor();
    expect(await empty.textContent()).toContain('A campaign reaches a list of people once');
    await checkBothWidths('campaigns-empty');

    await empty.getByRole('link', { name: 'Create the first campaign' }).click();
    await page().getByRole('heading', { name: 'New campaign' }).waitFor();
    await page().waitForSelector('#campaign-template option:has-text("order_update (en)")', { state: 'attached' });
    await checkBothWidths('campaign-new');

    // Nothing filled in: the server's validation failure, each message at its field.
    await page().click('button:has-text("Create draft")');
    await waitForText(page(), '#campaign-name-error', (t) => t.length > 0);
    expect(await fieldError('campaign-name').textContent()).toBe('Too small: expected string to have >=1 characters');
    expect(await fieldError('audience-tags').textContent()).toBe('A segment needs at least one tag.');
    expect(await page().getAttribute('#campaign-name', 'aria-invalid')).toBe('true');
    await screenshot(page(), 'campaign-new-refused');

    // A name and tags, but no template: the create's own refusal (template_not_found), beside the template.
    await page().fill('#campaign-name', 'Festive offer');
    await page().fill('#audience-tags', 'vip');
    await page().click('button:has-text("Create draft")');
    await waitForText(page(), '#campaign-template-error', (t) => t === 'A WhatsApp campaign needs a template.');
    expect(await page().locator('#campaign-name-error').count()).toBe(0);

    // Chosen contacts, the template and its three variables: created, and the draft opens.
    const people = await insertContacts(api.db, ws.workspaceId, 3);
    await page().check('input[name="audience-kind"][value="contact_ids"]');
    await page().fill('#audience-contact-ids', people.map((p) => p._id).join('\n'));
    await page().selectOption('#campaign-template', { label: 'order_update (en)' });
    await page().fill('#campaign-variable-0', '{{contact.name}}');
    await page().fill('#campaign-variable-1', 'A-17');
    await page().fill('#campaign-variable-2', 'Friday');
    await page().fill('#campaign-throttle', '30');
    await page().selectOption('#campaign-consent', 'existing_customer');
    await page().click('button:has-text("Create draft")');
    await page().waitForURL(/\/campaigns\/cmp_[0-9a-f]{24}$/);
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'draft');
    const id = /\/campaigns\/(cmp_[0-9a-f]{24})$/.exec(page().url())![1]!;
    const stored = await findCampaign(api.db, ws.workspaceId, id);
    expect(stored).toMatchObject({
      name: 'Festive offer',
      channel: 'whatsapp',
      created_by: { kind: 'console', id: 'console' },
      audience: { kind: 'contact_ids', contact_id_count: 3 },
      template: { name: 'order_update', language: 'en', variables: ['{{contact.name}}', 'A-17', 'Friday'] },
      consent: { basis: 'existing_customer' },
    });
    expect(stored!.schedule.throttle_per_minute).toBe(30);
  });

  it('creates a call campaign: an unknown {{variable}} in the purpose is refused beside it, questions are kept with their options', async () => {
    await open('/campaigns/new');
    await page().fill('#campaign-name', 'Delivery check');
    await page().check('input[name="channel"][value="voice"]');
    await page().fill('#audience-tags', 'orders');
    await page().waitForSelector(`#campaign-agent option[value="${ws.agentId}"]`, { state: 'attached' });
    await page().selectOption('#campaign-agent', ws.agentId);
    await page().fill('#campaign-purpose', 'Confirm the delivery to {{city}}');
    await page().click('button:has-text("Add a question")');
    await page().fill('#question-0-label', 'Address correct?');
    await page().selectOption('#question-0-type', 'yes_no');
    await page().check('.question input[type=checkbox]');
    await page().click('button:has-text("Add a question")');
    await page().fill('#question-1-label', 'Preferred slot');
    await page().selectOption('#question-1-type', 'choice');
    await page().fill('#question-1-options', 'Morning, Evening');
    await page().fill('#campaign-window-start', '11');
    await checkBothWidths('campaign-new-call');
    await page().click('button:has-text("Create draft")');
    await waitForText(page(), '#campaign-purpose-error', (t) => t.startsWith('No contact can fill {{city}}'));

    await page().fill('#campaign-purpose', 'Confirm the delivery to {{name}}');
    await page().click('button:has-text("Create draft")');
    await page().waitForURL(/\/campaigns\/cmp_[0-9a-f]{24}$/);
    const id = /\/campaigns\/(cmp_[0-9a-f]{24})$/.exec(page().url())![1]!;
    const stored = await findCampaign(api.db, ws.workspaceId, id);
    expect(stored).toMatchObject({ channel: 'voice', agent_id: ws.agentId, purpose: 'Confirm the delivery to {{name}}', audience: { kind: 'segment', tags: ['orders'] } });
    expect(stored!.capture!.fields.map((f) => [f.key, f.type, f.required, f.options])).toEqual([
      ['address_correct', 'yes_no', true, []],
      ['preferred_slot', 'choice', false, ['Morning', 'Evening']],
    ]);
    expect(stored!.schedule.send_window_start_hour).toBe(11);
  });

  it('adds a dues subscriber from the empty dues page: an unusable phone is refused beside it, then the subscriber opens with their dues', async () => {
    await open('/dues');
    const empty = page().getByRole('region', { name: 'No subscribers yet' });
    await empty.waitFor();
    await checkBothWidths('dues-empty');
    await empty.getByRole('link', { name: 'Add the first subscriber' }).click();
    await page().getByRole('heading', { name: 'New subscriber' }).waitFor();
    await checkBothWidths('subscriber-new');

    await page().fill('#subscriber-name', 'Meera Iyer');
    await page().fill('#subscriber-phone', '12');
    await page().fill('#subscriber-amount', '1500');
    await page().fill('#subscriber-plan', 'Yoga classes');
    await page().fill('#subscriber-start', '2031-06-01');
    await page().click('button:has-text("Add subscriber")');
    await waitForText(page(), '#subscriber-phone-error', (t) => t.length > 0);
    expect(await fieldError('subscriber-phone').textContent()).toBe('Too small: expected string to have >=6 characters');

    await page().fill('#subscriber-phone', '98765 43210');
    await page().click('button:has-text("Add subscriber")');
    await page().waitForURL(/\/dues\/sub_\w+$/);
    await waitForText(page(), '[data-testid=subscriber-added]', (t) => t.includes('Meera Iyer (+919876543210) pays ₹1500 on the Yoga classes; next due 1 Jun 2031'));
    // The subscriber's page: their dues with their dates, what is due now and what is scheduled (issue 35 §3).
    await page().waitForSelector('[data-testid=subscriber-dues] [data-label="Due date"]:has-text("1 Jul 2031")');
    expect(await page().textContent('[data-testid=scheduled]')).toContain('₹3000');
    await checkBothWidths('dues-subscriber-added');
  });

  it('the other empty pages say what they are for and how to start, at both widths', async () => {
    for (const [path, title] of [
      ['/conversations', 'No conversations yet'],
      ['/tickets', 'No tickets yet'],
      ['/webhooks', 'No webhook endpoints yet'],
    ] as const) {
      await open(path);
      await page().getByRole('region', { name: title }).waitFor();
      await checkBothWidths(`${path.slice(1)}-empty`);
    }
    // A workspace always has its first key, so the keys page is checked with it.
    await open('/keys');
    await page().waitForSelector('text=Create key');
    await checkBothWidths('keys');
    await page().goto(`${base}/console/workspaces`);
    await page().waitForSelector(`td:has-text("${ws.workspaceId}")`);
    await checkBothWidths('workspaces');
  });

  it('lists recent calls before the search box, narrowed by status, number and outcome', async () => {
    await open('/calls');
    const empty = page().getByRole('region', { name: 'No calls yet' });
    await empty.waitFor();
    await checkBothWidths('calls-empty');

    const start = Date.now() - 60_000;
    const campaign = `cmp_${'c'.repeat(24)}`;
    const specs = [
      { to: '+919811100001', status: 'completed', outcome: 'caller_hangup', metadata: {} },
      { to: '+919811100002', status: 'failed', outcome: 'no_answer', metadata: { campaign_id: campaign, campaign_name: 'Delivery check' } },
      { to: '+919811100001', status: 'completed', outcome: 'agent_hangup', metadata: { campaign_id: campaign, campaign_name: 'Delivery check' } },
    ] as const;
    const docs = specs.map((s, i) => storedCall(ws, new Date(start + i * 1000), s.to, { status: s.status, outcome: s.outcome, metadata: { ...s.metadata } }));
    await callCollections(api.db).calls.insertMany(docs);
    const shown = async () => page().locator('[data-testid=recent-calls] tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-call')));

    await open('/calls');
    await page().waitForSelector('[data-testid=recent-calls]');
    expect(await shown()).toEqual([docs[2]!._id, docs[1]!._id, docs[0]!._id]);
    // The list comes before the box that opens one call.
    const [listTop, searchTop] = await Promise.all([page().locator('[data-testid=recent-calls]').boundingBox(), page().locator('#call-query').boundingBox()]);
    expect(listTop!.y).toBeLessThan(searchTop!.y);
    await checkBothWidths('calls-recent');

    const rowsAre = (ids: string[]) => waitForRows(page(), '[data-testid=recent-calls] tbody tr', 'data-call', ids);
    await page().selectOption('#filter-status', 'completed');
    expect(await rowsAre([docs[2]!._id, docs[0]!._id])).toEqual([docs[2]!._id, docs[0]!._id]);
    await page().fill('#filter-number', '+91 98111 00001');
    await page().press('#filter-number', 'Tab');
    await page().selectOption('#filter-status', '');
    expect(await rowsAre([docs[2]!._id, docs[0]!._id])).toEqual([docs[2]!._id, docs[0]!._id]);
    await page().fill('#filter-number', '');
    await page().press('#filter-number', 'Tab');
    await page().selectOption('#filter-outcome', 'no_answer');
    expect(await rowsAre([docs[1]!._id])).toEqual([docs[1]!._id]);
    await page().click('button:has-text("Clear filters")');
    expect(await rowsAre([docs[2]!._id, docs[1]!._id, docs[0]!._id])).toEqual([docs[2]!._id, docs[1]!._id, docs[0]!._id]);
  });

  it('a list answering late neither resets the number being typed nor replaces the list of newer filters', async () => {
    // The three calls of the test above: +919811100001 twice (completed), +919811100002 once (no answer).
    await open('/calls');
    await page().waitForSelector('[data-testid=recent-calls] tbody tr');
    const calls = await page().locator('[data-testid=recent-calls] tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-call')));
    expect(calls).toHaveLength(3);
    const [newest, noAnswer, oldest] = calls as [string, string, string];

    // Hold the answer for one number until the box has been emptied and an outcome picked.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = /\/calls\?(?=.*to=%2B91)/;
    await page().route(held, async (route) => {
      await released;
      await route.continue();
    });
    await page().fill('#filter-number', '+919811100001');
    await page().press('#filter-number', 'Tab');
    await page().fill('#filter-number', '');
    // The held answer lands while the box is being emptied: the page re-renders before it is left.
    release();
    await page().waitForResponse(held);
    await page().press('#filter-number', 'Tab');
    await page().selectOption('#filter-outcome', 'no_answer');
    const rows = await waitForRows(page(), '[data-testid=recent-calls] tbody tr', 'data-call', [noAnswer]);
    await page().unroute(held);
    expect({ box: await page().inputValue('#filter-number'), rows }).toEqual({ box: '', rows: [noAnswer] });
    expect([newest, oldest]).not.toContain(noAnswer);
  });
});
