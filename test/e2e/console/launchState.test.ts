import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, screenshot, seriousA11yViolations, waitForText, type TestBrowser } from '../../support/browser';
import { insertContacts, insertVoiceCampaignDraft } from '../../support/campaigns';
import { bearer } from '../../support/http';

/**
 * What the campaign pages offer in each state (issue 35 §5, §6), in Debian's chromium against
 * the real API and worker: a draft whose tag matches nobody is not offered a launch and says
 * the tag is the cause; a call campaign launched to start tomorrow reads as waiting, with the
 * call columns in the list and no chart, funnel or empty headings. Needs `npm run build:web` first.
 */
jest.setTimeout(150_000);

describe('campaign launch state in the web console', () => {
  let browser: TestBrowser;
  let base: string;
  afterAll(async () => {
    await browser?.close();
  });
  const { api, ws } = useTestApi({ worker: true });

  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });

  const page = () => browser.page;
  const buttons = async () => (await page().locator('section[aria-label=Controls] button').allTextContents()).map((t) => t.trim());
  async function atBothWidths(name: string) {
    await checkPage(page(), name);
    await page().setViewportSize({ width: 390, height: 844 });
    await screenshot(page(), `${name}-390`);
    expect(await page().evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousA11yViolations(page())).toEqual([]);
    await page().setViewportSize({ width: 1280, height: 900 });
  }

  it('a draft whose tag no contact has is not offered a launch, and the fix names the tag', async () => {
    await insertContacts(api.db, ws.workspaceId, 3);
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(ws.key))
      .send({ name: 'Nobody tagged', audience: { kind: 'segment', tags: ['nobody-has-this'] }, template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] } });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;

    await page().goto(`${base}/console/w/${ws.workspaceId}/campaigns/${id}`);
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'draft');
    // Before launch there are no recipients to count: no "Recipients 0", no "Reached 0 of 0".
    expect(await page().locator('[data-testid=recipients]').count()).toBe(0);
    expect(await page().locator('[data-testid=reached]').count()).toBe(0);
    expect(await page().getByRole('region', { name: 'Progress' }).count()).toBe(0);

    await page().click('button:has-text("Evaluate")');
    await waitForText(page(), '[data-testid=eligible]', (t) => t === '0');
    const blocked = await waitForText(page(), '[data-testid=launch-blocked]', (t) => t.length > 0);
    expect(blocked).toBe(
      'Launch is not possible: No contact has the tag "nobody-has-this": nobody matched. Tag the contacts to reach with "nobody-has-this", or choose a tag your contacts have.',
    );
    expect(blocked).not.toMatch(/phone/i);
    const launch = page().locator('section[aria-label=Controls] button', { hasText: 'Launch' });
    expect(await launch.isDisabled()).toBe(true);
    expect(await launch.getAttribute('aria-describedby')).toBe('launch-blocked');
    // The evaluation's own finding says the same.
    expect(await page().locator('.finding-block').first().textContent()).toContain('No contact has the tag "nobody-has-this"');
    expect(await page().getByRole('dialog').count()).toBe(0);
    expect(await page().textContent('body')).not.toContain('This sends to 0 people');
    await atBothWidths('campaign-nobody-to-send-to');
  });

  it('a call campaign launched to start tomorrow reads as waiting, with call columns and no chart or empty sections', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 4);
    const tomorrow = new Date(Date.now() + 24 * 3_600_000);
    const c = await insertVoiceCampaignDraft(api.db, ws.workspaceId, {
      contactIds: people.map((p) => p._id),
      agentId: ws.agentId,
      schedule: { start_at: tomorrow, timezone: 'Asia/Kolkata', throttle_per_minute: 10 },
    });
    const launched = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${c._id}/launch`)
      .set(bearer(api.config.CONSOLE_TOKEN!))
      .send({ expected_version: 1, confirm_recipients: 4 });
    expect(launched.status).toBe(200);
    expect(launched.body.status).toBe('scheduled');
    expect(launched.body.waiting_until).not.toBeNull();
    expect(new Date(launched.body.waiting_until).getTime()).toBeGreaterThanOrEqual(tomorrow.getTime() - 1_000);

    // The list: the call campaigns' own table, its columns calls, not WhatsApp's Sent/Delivered/Read.
    await page().goto(`${base}/console/w/${ws.workspaceId}/campaigns`);
    const calls = page().getByRole('region', { name: 'Call campaigns' });
    await calls.locator(`tr[data-campaign="${c._id}"]`).waitFor();
    expect((await calls.locator('thead th').allTextContents()).map((t) => t.trim())).toEqual(['Name', 'Status', 'Recipients', 'Dialled', 'Failed', 'Skipped', 'Created']);
    const status = await calls.locator(`tr[data-campaign="${c._id}"] [data-testid=campaign-status]`).textContent();
    expect(status).toMatch(/^waiting for its start — starts \w{3} \d{1,2} \w{3}, \d\d:\d\d \(Asia\/Kolkata\)$/);
    expect(await calls.locator(`tr[data-campaign="${c._id}"] .status-running`).count()).toBe(0);
    await atBothWidths('campaigns-list-voice-waiting');

    await page().goto(`${base}/console/w/${ws.workspaceId}/campaigns/${c._id}`);
    const shown = await waitForText(page(), '[data-testid=campaign-status]', (t) => t.startsWith('waiting'));
    expect(shown).toMatch(/^waiting for its start — starts .+ \(.+\)$/);
    expect(await page().locator('[data-testid=campaign-status]').getAttribute('data-status')).toBe('scheduled');
    await page().getByRole('region', { name: 'Outcome report' }).waitFor();
    await waitForText(page(), '[data-testid=no-outcomes]', (t) => t.length > 0);
    // No chart of a run that has not started, no funnel reading "staged (100%)", no empty "Dispositions".
    expect(await page().locator('figure.chart').count()).toBe(0);
    const body = (await page().textContent('body'))!;
    expect(body).not.toContain('staged (100%)');
    expect(body).not.toContain('Dispositions');
    expect(body).toContain('The chart starts when the first call goes.');
    // A launched campaign is not evaluated again, nor launched.
    // Duplicate is offered in every state (a new draft with its settings).
    expect(await buttons()).toEqual(['Pause', 'Duplicate', 'Cancel campaign']);
    await atBothWidths('campaign-voice-waiting-tomorrow');
    const read = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${c._id}`).set(bearer(api.config.CONSOLE_TOKEN!))).body;
    expect((await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${c._id}/cancel`).set(bearer(api.config.CONSOLE_TOKEN!)).send({ expected_version: read.version })).status).toBe(200);
  });
});
