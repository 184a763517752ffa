import request from 'supertest';
import { checkPage, waitForText, screenshot, seriousA11yViolations } from '../../support/browser';
import { atPhoneWidth, useConsolePage } from '../../support/consolePage';
import { insertCampaignDraft, insertContacts, insertVoiceCampaignDraft, zoneAtNineInTheEvening, zoneOpenAt } from '../../support/campaigns';
import { bearer } from '../../support/http';

/**
 * Campaigns in the web console, in Debian's chromium against the real API and worker: a
 * campaign created through the public API is evaluated, launched (after the page's own
 * confirmation dialog, cancelled once), watched as its counters move (the page polls;
 * nothing reloads) and paused, when Resume is its one way on; the page says what the run is
 * doing and why (sending, waiting for a call campaign's window, completed) over a uPlot time
 * chart, at 1280 and 390 px. Needs `npm run build:web` first.
 */
jest.setTimeout(150_000);

describe('campaigns in the web console', () => {
  const { api, ws, page, base } = useConsolePage({ worker: true, acceptDialogs: true });
  const consoleRead = async (id: string) => (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}`).set(bearer(api.config.CONSOLE_TOKEN!))).body;
  // The chart follows its container's width (a ResizeObserver): give it a frame to redraw.
  const chartFitsPhone = () =>
    page().waitForFunction(() => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getBoundingClientRect(): { width: number } } | null } }).document;
      const canvas = doc.querySelector('.chart canvas');
      return !canvas || canvas.getBoundingClientRect().width <= 390;
    });
  /** The chart is uPlot's canvas, with both axes named. */
  async function expectChart(timeZone: string) {
    const chart = page().locator('figure.chart');
    await chart.locator('canvas').first().waitFor();
    expect(await chart.getAttribute('data-x-label')).toBe(`Time (${timeZone})`);
    expect(await chart.getAttribute('data-y-label')).toBe('People');
    expect(await chart.locator('figcaption').textContent()).toContain(`(across: Time (${timeZone}); up: People)`);
    // uPlot's time axis: its tick labels are drawn, so the canvas is not blank.
    const box = await chart.locator('canvas').first().boundingBox();
    expect(box!.width).toBeGreaterThan(200);
  }
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
        // One every 3 s, inside the send window wherever the clock is: long enough to watch and
        // pause. At one a second half the 40 were gone by the pause on a loaded machine (the
        // page's checks before it took 25 s), and all of them when those took 45 s.
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 20 },
      });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;

    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns`);
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
    // What the run is doing: sending at the throttle inside the window, with a finish estimate.
    await waitForText(page(), '[data-testid=run-explanation]', (t) => t.startsWith('Sending: up to 20 messages a minute, 09:00–21:00 in '));
    expect(await page().textContent('[data-testid=eta]')).toMatch(/\d\d:\d\d/);
    const zone = (await consoleRead(id)).explanation.time_zone as string;
    await expectChart(zone);
    await checkPage(page(), 'campaign-running');
    await atPhoneWidth(page(), 'campaign-running-390', chartFitsPhone);

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

  it('a call campaign launched after its calling window says it waits for the window, with call progress, not message counters', async () => {
    const zone = zoneAtNineInTheEvening(new Date());
    const people = await insertContacts(api.db, ws.workspaceId, 30);
    const c = await insertVoiceCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), agentId: ws.agentId, schedule: { timezone: zone, throttle_per_minute: 10 } });
    const launched = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${c._id}/launch`)
      .set(bearer(api.config.CONSOLE_TOKEN!))
      .send({ expected_version: 1, confirm_recipients: 30 });
    expect(launched.status).toBe(200);
    expect(launched.body.notices.map((n: { code: string }) => n.code)).toEqual(['window_closed']);

    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns/${c._id}`);
    // Launched but waiting for its window: it reads as waiting, not as a green "running" (issue 35 §6).
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t.startsWith('waiting for its window — starts '));
    expect(await page().locator('[data-testid=campaign-status]').getAttribute('data-status')).toBe('running');
    const headline = await waitForText(page(), '[data-testid=run-explanation]', (t) => t.length > 0);
    // The opening in the workspace's own zone (the campaign's is another).
    const workspaceZone = (await consoleRead(c._id)).explanation.time_zone as string;
    expect(headline.startsWith(`Waiting for the calling window: calls go 10:00–19:00 in ${zone}; it opens `)).toBe(true);
    expect(headline).toMatch(new RegExp(`it opens \\d\\d:\\d\\d (today|tomorrow) \\(${workspaceZone}\\)\\.$`));
    // Calls, not WhatsApp's counters.
    const progress = page().getByRole('region', { name: 'Progress' });
    expect(await progress.locator('[data-counter]').evaluateAll((els) => els.map((e) => e.getAttribute('data-counter')))).toEqual(['dialled', 'answered', 'completed', 'call_backs', 'owed', 'live']);
    expect(await progress.locator('[data-counter=dialled]').textContent()).toBe('0');
    expect(await progress.locator('[data-counter=sent]').count()).toBe(0);
    await checkPage(page(), 'campaign-voice-waiting');
    await atPhoneWidth(page(), 'campaign-voice-waiting-390', chartFitsPhone);
    const read = await consoleRead(c._id);
    expect((await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${c._id}/cancel`).set(bearer(api.config.CONSOLE_TOKEN!)).send({ expected_version: read.version })).status).toBe(200);
  });

  it('a completed campaign says so, with its funnel, over a chart from launch to completion', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 12);
    const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), name: 'Finished broadcast', schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 } });
    expect((await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${c._id}/launch`).set(bearer(api.config.CONSOLE_TOKEN!)).send({ expected_version: 1 })).status).toBe(200);
    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns/${c._id}`);
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'completed', 60_000);
    await waitForText(page(), '[data-testid=run-explanation]', (t) => /^Completed \d\d:\d\d today \(.+\): 12 sent, \d+ delivered, \d+ read, 0 failed, 0 skipped\.$/.test(t));
    await expectChart((await consoleRead(c._id)).explanation.time_zone);
    await checkPage(page(), 'campaign-completed');
    await atPhoneWidth(page(), 'campaign-completed-390', chartFitsPhone);
  });
});
