import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, screenshot, seriousA11yViolations, waitForText, type TestBrowser } from '../../support/browser';
import { insertContacts, zoneOpenAt } from '../../support/campaigns';
import { bearer } from '../../support/http';

/**
 * Campaigns in the web console, in Debian's chromium against the real API and worker: a
 * campaign created through the public API is evaluated, launched (after the page's own
 * confirmation dialog, cancelled once), watched as its counters move (the page polls;
 * nothing reloads) and paused, when Resume is its one way on. Needs `npm run build:web` first.
 */
jest.setTimeout(150_000);

describe('campaigns in the web console', () => {
  let browser: TestBrowser;
  let base: string;
  // Declared before the API's: afterAll hooks run in the order they are declared, and the
  // page, which polls, is closed before the API and worker it talks to.
  afterAll(async () => {
    await browser?.close();
  });
  const { api, ws } = useTestApi({ worker: true });

  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    browser.page.on('dialog', (dialog) => void dialog.accept());
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });

  const page = () => browser.page;
  /** Recipients reached: everyone no longer queued (the counters are a funnel, so they are not added up). */
  const reached = async () => Number(await page().textContent('[data-testid=reached]'));

  it('evaluates, launches, shows the counters moving without a reload, and pauses', async () => {
    const contacts = await insertContacts(api.db, ws.workspaceId, 40);
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(ws.key))
      .send({
        name: 'Console launch',
        audience: { kind: 'contact_ids', contact_ids: contacts.map((c) => c._id) },
        template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] },
        // One a second, inside the send window wherever the clock is: long enough to watch and pause.
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 60 },
      });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;

    await page().goto(`${base}/console/w/${ws.workspaceId}/campaigns`);
    await waitForText(page(), `tr[data-campaign="${id}"] .status`, (t) => t === 'draft');
    await checkPage(page(), 'campaigns');

    await page().click(`a:has-text("Console launch")`);
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'draft');
    await page().click('button:has-text("Evaluate")');
    await waitForText(page(), '[data-testid=eligible]', (t) => t === '40');
    await checkPage(page(), 'campaign-evaluated');

    // Launch asks first, in the page (a modal <dialog>, not window.confirm), with the count it will send to.
    const readStatus = async () => (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}`).set(bearer(api.config.CONSOLE_TOKEN!))).body;
    const before = await readStatus();
    await page().click('button:has-text("Launch")');
    const dialog = page().getByRole('dialog', { name: 'Launch "Console launch"?' });
    await dialog.waitFor();
    expect(await dialog.locator('[data-testid=launch-count]').textContent()).toBe('40');
    expect(await dialog.textContent()).toContain('This sends to 40 people');
    await screenshot(page(), 'campaign-launch-confirm', { fullPage: false });
    expect(await seriousA11yViolations(page())).toEqual([]);
    await page().setViewportSize({ width: 390, height: 844 });
    await screenshot(page(), 'campaign-launch-confirm-390', { fullPage: false });
    // Nothing wider than the phone's screen: no sideways scrolling.
    expect(await page().evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await seriousA11yViolations(page())).toEqual([]);
    await page().setViewportSize({ width: 1280, height: 900 });
    // Cancel sends nothing: the dialog goes, the campaign stays the draft it was, at the same version.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await readStatus()).toMatchObject({ status: 'draft', version: before.version });
    expect(await page().textContent('[data-testid=campaign-status]')).toBe('draft');
    // Confirm launches, sending the version the page read and the count the dialog stated.
    await page().click('button:has-text("Launch")');
    await dialog.getByRole('button', { name: 'Confirm launch' }).click();
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'running');
    await waitForText(page(), '[data-testid=reached]', (t) => Number(t) > 0, 60_000);
    const first = await reached();
    await waitForText(page(), '[data-testid=reached]', (t) => Number(t) > first, 60_000);
    expect(await reached()).toBeLessThan(40);
    await checkPage(page(), 'campaign-running');

    await page().click('button:has-text("Pause")');
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'paused');
    // A batch already under way may still land; after it, nothing more is sent. The API's
    // recipients by state say when it has settled; the page, polling, then shows the same number.
    const apiReached = async () => {
      const read = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}`).set(bearer(api.config.CONSOLE_TOKEN!));
      expect(read.body.status).toBe('paused');
      return read.body.recipients - read.body.states.queued;
    };
    let settled = await apiReached();
    for (;;) {
      await page().waitForTimeout(5_000);
      const now = await apiReached();
      if (now === settled) break;
      settled = now;
    }
    expect(settled).toBeLessThan(40);
    await waitForText(page(), '[data-testid=reached]', (t) => Number(t) === settled, 30_000);
    await page().waitForSelector('button:has-text("Resume")');
    // One way on from paused: Resume, not Launch as well (the API's launch would resume too).
    const controls = page().getByRole('region', { name: 'Controls' });
    expect(await controls.getByRole('button', { name: 'Resume' }).count()).toBe(1);
    expect(await controls.getByRole('button', { name: 'Launch' }).count()).toBe(0);
    await checkPage(page(), 'campaign-paused');
  });
});
