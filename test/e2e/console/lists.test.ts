import request from 'supertest';
import { checkPage, waitForText, screenshot, seriousA11yViolations } from '../../support/browser';
import { atPhoneWidth, useConsolePage } from '../../support/consolePage';
import { bearer } from '../../support/http';

/**
 * Uploaded lists in the web console, in Debian's chromium against the real API: the empty
 * page says what a list is for, a CSV is uploaded through the file control and shown with its
 * variables and first rows, a bad file's refusal says why and where, and a campaign on the
 * list names the rows evaluate left out. At 1280 px and at 390 px without sideways scrolling.
 * Needs `npm run build:web` first.
 */
jest.setTimeout(120_000);

describe('uploaded lists in the web console', () => {
  const { api, ws, page, base } = useConsolePage();


  const CSV = [
    'Phone,Name,Order Number,City,Delivery Note',
    '+919811100501,Asha Rao,A-17,Pune,Leave with the neighbour at number 12 if nobody answers the door',
    ',No number,A-18,Pune,',
    '+919811100501,Asha again,A-19,Pune,',
    '+919811100504,Ravi Kumar,,Delhi,',
    '98111 00505,Meera,B-2,Chennai,Ring twice',
  ].join('\n');

  it('uploads a CSV from the lists page, shows its variables and first rows, and refuses a bad file with its reason', async () => {
    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns`);
    await page().click('nav a:has-text("Lists")');
    await page().waitForSelector('h1:has-text("Uploaded lists")');
    await waitForText(page(), 'main', (t) => t.includes('No lists yet'));
    await checkPage(page(), 'lists-empty');
    await atPhoneWidth(page(), 'lists-empty-390');

    await page().setInputFiles('#list-file', { name: 'march orders.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    expect(await page().inputValue('#list-name')).toBe('march orders');
    await page().click('button:has-text("Upload list")');
    await page().waitForSelector('h1:has-text("march orders")');
    expect(await page().textContent('[data-testid=list-rows]')).toBe('5');
    expect(await page().textContent('.variables')).toContain('{{order_number}} from “Order Number”');
    await checkPage(page(), 'list');
    await atPhoneWidth(page(), 'list-390');

    await page().click('a:has-text("Uploaded lists")');
    await page().waitForSelector('li.card');
    await checkPage(page(), 'lists');
    await atPhoneWidth(page(), 'lists-390');

    await page().setInputFiles('#list-file', { name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from('Name,City\nAsha,Pune\n') });
    await page().click('button:has-text("Upload list")');
    const refusal = await waitForText(page(), '.upload-refused', (t) => t.length > 0);
    expect(refusal).toContain('The file was not uploaded: No column is named "phone"; the columns are name, city.');
    expect(refusal).toContain('Fix the file and upload it again; nothing was kept.');
    await screenshot(page(), 'lists-refused');
    expect(await seriousA11yViolations(page())).toEqual([]);
  });

  it('a campaign on the list names each row evaluate left out, with its reason', async () => {
    const admin = bearer(api.config.CONSOLE_TOKEN!);
    const listId = (await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/lists?name=Orders`).set(admin).set('Content-Type', 'text/csv').send(CSV)).body
      .list_id as string;
    const created = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/campaigns`)
      .set(admin)
      .send({ name: 'Orders from a file', audience: { kind: 'uploaded_list', list_id: listId }, template: { name: 'order_update', variables: ['{{name}}', '{{order_number}}', '{{city}}'] } });
    expect(created.status).toBe(201);
    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns/${created.body.campaign_id}`);
    await page().click('button:has-text("Evaluate")');
    await waitForText(page(), '[data-testid=eligible]', (t) => t === '2');
    await page().click('summary:has-text("Who was left out")');
    const rows = await page().locator('.excluded-rows tbody tr').allTextContents();
    expect(rows).toEqual(['3no usable phone number', '4listed twice (same contact or number)', '5a variable has no value ({{order_number}})']);
    await checkPage(page(), 'campaign-list-evaluated');
    await atPhoneWidth(page(), 'campaign-list-evaluated-390');
  });
});
