import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, waitForText, type TestBrowser } from '../../support/browser';
import { insertContacts, zoneOpenAt } from '../../support/campaigns';
import { bearer } from '../../support/http';

/**
 * Campaigns in the web console, in Debian's chromium against the real API and worker: a
 * campaign created through the public API is evaluated, launched, watched as its counters
 * move (the page polls; nothing reloads) and paused. Needs `npm run build:web` first.
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

    // The version is the page's business: launch sends the one it read, and the eligible count just shown.
    await page().click('button:has-text("Launch")');
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
    await checkPage(page(), 'campaign-paused');
  });
});
