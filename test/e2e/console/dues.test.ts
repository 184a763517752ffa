import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, waitForText, type TestBrowser } from '../../support/browser';
import { bearer } from '../../support/http';

/** The dues page in Debian's chromium: subscribers, and each due with its chase. Needs `npm run build:web` first and the dues app's console routes. */
jest.setTimeout(90_000);

describe('dues in the web console', () => {
  const { api, ws } = useTestApi();
  let browser: TestBrowser;
  let base: string;

  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('shows subscribers and each due with the state of its chase, and picks up a new subscriber without a reload', async () => {
    const subscribe = (name: string, phone: string) =>
      request(api.server).post('/api/v1/apps/dues/subscribers').set(bearer(ws.key)).send({ name, phone, amount: 700, plan_name: 'Tiffin', start_date: '2031-01-10' });
    expect((await subscribe('Asha Rao', '+919712300001')).status).toBe(201);

    const page = browser.page;
    await page.goto(`${base}/console/w/${ws.workspaceId}/dues`);
    await waitForText(page, 'table:has(caption:has-text("Subscribers")) tbody', (t) => t.includes('Asha Rao') && t.includes('Tiffin'));
    const rows = page.locator('table:has(caption:has-text("Dues")) tbody tr');
    await waitForText(page, 'table:has(caption:has-text("Dues")) tbody', (t) => t.includes('10 Jan 2031'));
    const first = (await rows.allTextContents()).find((r) => r.includes('10 Jan 2031'))!;
    expect(first).toContain('Asha Rao');
    expect(first).toContain('scheduled');
    expect(first).toContain('running; next: reminder');
    await checkPage(page, 'dues');

    expect((await subscribe('Ravi Kumar', '+919712300002')).status).toBe(201);
    await waitForText(page, 'table:has(caption:has-text("Subscribers")) tbody', (t) => t.includes('Ravi Kumar'));
  });
});
