import request from 'supertest';
import { checkPage, waitForText, screenshot, seriousA11yViolations } from '../../support/browser';
import { atPhoneWidth, useConsolePage } from '../../support/consolePage';
import { insertContacts, zoneOpenAt } from '../../support/campaigns';
import { bearer } from '../../support/http';
import { scriptRecipient } from '../../support/messaging';

/**
 * What was sent and to whom (issue 35 §1–3), in Debian's chromium against the real API and
 * worker: a campaign's page and its launch dialog show the message filled for a real person,
 * the sender and the audience; after the run its report lists each person with their status
 * and the reason in words, filters by status and exports the filtered rows as CSV; every time
 * is in the workspace's zone, named once on the page; a dues subscriber's page says what is due
 * now, what is scheduled and why each due exists. Screenshots at 1280 and 390 px. Needs
 * `npm run build:web` first.
 */
jest.setTimeout(150_000);

describe('campaign report, preview and the subscriber page in the web console', () => {
  const { api, ws, page, base } = useConsolePage({ worker: true });
  const consoleGet = (path: string) => request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}${path}`).set(bearer(api.config.CONSOLE_TOKEN!));

  it('the preview and the launch dialog show the message; the report lists each person with status and reason, filters and exports', async () => {
    const contacts = await insertContacts(api.db, ws.workspaceId, 4);
    // One person's number is refused by WhatsApp: their row must say so in words.
    await scriptRecipient(api, ws.workspaceId, contacts[2]!.phone!, { refuse: { code: 131026, subcode: 2494010, message: 'Message undeliverable', user_message: 'This number is not on WhatsApp.' } });
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(ws.key))
      .send({
        name: 'Report walk',
        audience: { kind: 'contact_ids', contact_ids: contacts.map((c) => c._id) },
        template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] },
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
      });
    expect(created.status).toBe(201);
    const id: string = created.body.campaign_id;

    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns/${id}`);
    // One clock, named once on the page.
    const zone = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}`).set(bearer(api.config.CONSOLE_TOKEN!))).body.timezone as string;
    await waitForText(page(), '[data-testid=clock-note]', (t) => t === `Times in ${zone}, the workspace's time zone.`);
    const message = await waitForText(page(), '[data-testid=campaign-preview] [data-testid=preview-message]', (t) => t.includes('Person 0'));
    expect(message).toContain('A-1');
    expect(message).toContain('Friday');
    expect(message).not.toMatch(/\{\{\d\}\}/);
    expect(await page().textContent('[data-testid=campaign-preview] [data-testid=preview-audience]')).toBe('4 contacts chosen by id');
    expect(await page().textContent('[data-testid=campaign-preview] [data-testid=preview-sender]')).toMatch(/\(\+\d+\)$/);
    await checkPage(page(), 'campaign-preview');
    await atPhoneWidth(page(), 'campaign-preview-390');

    // Edit the draft: the form starts from its settings; saving moves it to version 2 and the preview follows.
    await page().click('a:has-text("Edit draft")');
    await waitForText(page(), 'h1', (t) => t === 'Edit draft “Report walk”');
    expect(await page().inputValue('#campaign-name')).toBe('Report walk');
    await page().waitForSelector('#campaign-variable-1');
    // The draft's template is chosen once the workspace's templates (loaded apart from the draft) are the select's options.
    await page().waitForSelector('#campaign-template option[value^="order_update|"]', { state: 'attached' });
    expect(await page().inputValue('#campaign-template')).toMatch(/^order_update\|/);
    expect(await page().inputValue('#campaign-variable-0')).toBe('{{contact.name}}');
    expect(await page().inputValue('#campaign-variable-1')).toBe('A-1');
    await checkPage(page(), 'campaign-edit');
    await atPhoneWidth(page(), 'campaign-edit-390');
    await page().fill('#campaign-variable-1', 'B-7');
    await page().click('button:has-text("Save draft")');
    await waitForText(page(), '[data-testid=campaign-preview] [data-testid=preview-message]', (t) => t.includes('B-7'));
    expect((await consoleGet(`/campaigns/${id}`)).body).toMatchObject({ status: 'draft', version: 2, template: { variables: ['{{contact.name}}', 'B-7', 'Friday'] } });
    const edited = await page().textContent('[data-testid=campaign-preview] [data-testid=preview-message]');

    await page().click('button:has-text("Launch")');
    const dialog = page().getByRole('dialog', { name: 'Launch "Report walk"?' });
    await dialog.waitFor();
    await waitForText(page(), '[data-testid=launch-preview] [data-testid=preview-message]', (t) => t === edited);
    expect(edited).toBe(message!.replace('A-1', 'B-7'));
    await screenshot(page(), 'campaign-launch-preview', { fullPage: false });
    expect(await seriousA11yViolations(page())).toEqual([]);
    await page().setViewportSize({ width: 390, height: 844 });
    await screenshot(page(), 'campaign-launch-preview-390', { fullPage: false });
    await page().setViewportSize({ width: 1280, height: 900 });
    await dialog.getByRole('button', { name: 'Confirm launch' }).click();

    // The report: each person, their status, the reason in words.
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t === 'completed', 90_000);
    const rows = page().locator('[data-testid=report] tbody tr');
    await waitForText(page(), '[data-testid=report] tbody', (t) => t.includes('Refused by WhatsApp'));
    const texts = await rows.allTextContents();
    expect(texts).toHaveLength(4);
    expect(texts[0]).toContain('Person 0');
    expect(texts[0]).toContain(contacts[0]!.phone!);
    expect(texts[0]).toMatch(/Sent; not yet delivered\.|Delivered to their phone\.|Read\./);
    expect(texts[2]).toContain('Person 2');
    expect(texts[2]).toContain('failed');
    expect(texts[2]).toContain('Refused by WhatsApp when sending.');
    // Person 0 answers on WhatsApp: their reply shows on their row.
    const answered = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/whatsapp/inbound`)
      .set(bearer(api.config.CONSOLE_TOKEN!))
      .send({ from: contacts[0]!.phone, text: 'Thanks, see you Friday' });
    expect(answered.status).toBe(201);
    await waitForText(page(), '[data-testid=report] tbody tr:first-child', (t) => t.includes('“Thanks, see you Friday”'));
    // Completed in the workspace's zone (no browser-zone "11/27/2026, 1:13:32 PM" beside it).
    expect(await page().textContent('dl.facts')).not.toMatch(/\d+\/\d+\/\d{4}/);
    await checkPage(page(), 'campaign-report');
    await atPhoneWidth(page(), 'campaign-report-390');

    // Filter: only the failed one.
    await page().selectOption('[data-testid=report-state]', 'failed');
    await waitForText(page(), '[data-testid=report] tbody', (t) => !t.includes('Person 0') && t.includes('Person 2'));
    expect(await rows.count()).toBe(1);
    // Export follows the filter.
    const href = (await page().getAttribute('[data-testid=report-csv]', 'href'))!;
    expect(href).toBe(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}/recipients.csv?state=failed`);
    const csv = await page().evaluate(async (url) => (await fetch(url)).text(), href);
    const lines = csv.replace(/^\uFEFF/, '').trim().split('\n');
    expect(lines[0]).toBe('position,name,phone,contact_id,row,status,reason,reason_words,status_at_utc,status_at_local,reply,reply_at_local,time_zone');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`2,Person 2,${contacts[2]!.phone},${contacts[2]!._id},,failed,provider_error,Failed. Refused by WhatsApp when sending.,`);
    expect(lines[1]!.endsWith(`,${zone}`)).toBe(true);
  });

  it('duplicates a launched campaign into a draft with its settings; a launched one offers no edit', async () => {
    const contacts = await insertContacts(api.db, ws.workspaceId, 2);
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(ws.key))
      .send({
        name: 'Duplicate me',
        audience: { kind: 'contact_ids', contact_ids: contacts.map((c) => c._id) },
        template: { name: 'order_update', variables: ['{{contact.name}}', 'C-3', 'Sunday'] },
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
      });
    const id: string = created.body.campaign_id;
    const launched = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}/launch`)
      .set(bearer(api.config.CONSOLE_TOKEN!))
      .send({ expected_version: 1, confirm_recipients: 2 });
    expect(launched.status).toBe(200);
    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns/${id}`);
    await waitForText(page(), '[data-testid=campaign-status]', (t) => t !== 'draft');
    expect(await page().locator('a:has-text("Edit draft")').count()).toBe(0);
    await page().click('button:has-text("Duplicate")');
    await waitForText(page(), 'h1', (t) => t === 'Copy of Duplicate me');
    expect(await page().textContent('[data-testid=campaign-status]')).toBe('draft');
    await waitForText(page(), '[data-testid=campaign-preview] [data-testid=preview-message]', (t) => t.includes('C-3') && t.includes('Sunday'));
    // The launched one's edit page says to duplicate it instead.
    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns/${id}/edit`);
    await waitForText(page(), '[data-testid=not-a-draft]', (t) => t.includes('only a draft can be edited'));
  });

  it('a dues subscriber page explains due now vs scheduled, with each due dated and why it exists', async () => {
    await request(api.server).patch(`/console/v1/workspaces/${ws.workspaceId}`).set(bearer(api.config.CONSOLE_TOKEN!)).send({ installed_apps: ['dues'] });
    const made = await request(api.server)
      .post('/api/v1/apps/dues/subscribers')
      .set(bearer(ws.key))
      .send({ name: 'Meera Iyer', phone: '+919712300071', amount: 750, plan_name: 'Tuition' });
    expect(made.status).toBe(201);
    const subscriberId: string = made.body.subscriber_id;
    const account = (await consoleGet(`/apps/dues/subscribers/${subscriberId}`)).body;

    // The subscriber's name on the dues page opens their page.
    await page().goto(`${base()}/console/w/${ws.workspaceId}/dues`);
    await page().click('table:has(caption:has-text("Subscribers")) a:has-text("Meera Iyer")');
    await page().waitForURL(new RegExp(`/dues/${subscriberId}$`));
    await waitForText(page(), '[data-testid=due-now]', (t) => t.includes('₹750') && t.includes('1 due dated today or earlier.'));
    expect(await page().textContent('[data-testid=scheduled]')).toContain('₹750');
    expect(await page().textContent('[data-testid=scheduled]')).toContain('1 due raised ahead, not owed until its date.');
    expect(await page().textContent('[data-testid=subscriber-standing]')).toContain(`in ${account.time_zone}.`);
    const dues = await page().locator('[data-testid=subscriber-dues] tbody tr').allTextContents();
    expect(dues).toHaveLength(2);
    expect(dues[1]).toContain('Due today');
    expect(dues[1]).toContain("a new subscriber's first two dues are raised at once");
    expect(dues[0]).toContain('Scheduled (not owed yet)');
    await checkPage(page(), 'dues-subscriber');
    await atPhoneWidth(page(), 'dues-subscriber-390');
  });
});
