import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { checkPage, launchBrowser, logIn, screenshot, seriousA11yViolations, waitForText, type TestBrowser } from '../../support/browser';
import { bearer } from '../../support/http';
import { eventually } from '../../support/messaging';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * Keys and webhooks as issue 35 (item 8) asks, in Debian's chromium against the real API and
 * worker: a named key created, its secret shown once with a Copy button that copies it, then
 * gone; a key with no scopes refused in the page; a webhook endpoint with chosen events, its
 * success rate and a pending delivery's next try, its events changed, disabled, then deleted.
 * Each page at 1280 and 390 px. Needs `npm run build:web` first.
 */
jest.setTimeout(180_000);

describe('keys and webhooks in the web console', () => {
  let browser: TestBrowser;
  let base: string;
  let receiver: WebhookReceiver;
  const { api, ws } = useTestApi({ worker: true });
  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    // The second and third requests fail: the second ping's first two attempts, so it waits 30 s for its third.
    receiver = await startWebhookReceiver((_, index) => (index === 1 || index === 2 ? 500 : 200));
    browser = await launchBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
  });

  const page = () => browser.page;
  const open = async (path: string) => page().goto(`${base}/console/w/${ws.workspaceId}${path}`);
  const consoleGet = async (path: string) => (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}${path}`).set(bearer(api.config.CONSOLE_TOKEN!))).body;
  const scrollWidth = (p: Page) => p.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
  const bodyText = () => page().evaluate(() => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText);

  /** The page at 1280 px (screenshot, axe, every control reachable by Tab), then at 390 px: no wider than the phone, axe clean. */
  async function checkBothWidths(name: string): Promise<void> {
    await checkPage(page(), name);
    await page().setViewportSize({ width: 390, height: 844 });
    await screenshot(page(), `${name}-390`);
    expect({ name, width: await scrollWidth(page()) }).toEqual({ name, width: 390 });
    expect({ name, violations: await seriousA11yViolations(page()) }).toEqual({ name, violations: [] });
    await page().setViewportSize({ width: 1280, height: 900 });
  }

  it('creates a named key: shown once with a Copy button that copies it, then gone; a key without scopes is refused', async () => {
    await open('/keys');
    await page().waitForSelector('fieldset label.scope');
    // This deployment serves test keys: live is offered disabled, saying why.
    const live = page().locator('#key-environment option[value="live"]');
    expect(await live.isDisabled()).toBe(true);
    expect(await live.textContent()).toBe('live (this deployment accepts test keys only)');

    await page().fill('#key-name', 'Billing system');
    await page().click('button:has-text("Create key")');
    await waitForText(page(), '.error', (t) => t.includes('A key needs at least one scope') && t.includes('key_scopes_required'));
    expect(await page().locator('.shown-once').count()).toBe(0);

    await page().check('label.scope:has-text("calls:write") input');
    await page().click('button:has-text("Create key")');
    const shown = page().getByRole('region', { name: 'New API key “Billing system”' });
    await shown.waitFor();
    const secret = await shown.locator('input.secret').inputValue();
    expect(secret).toMatch(/^ork_test_[A-Za-z0-9]{40}$/);
    await shown.getByRole('button', { name: /^Copy/ }).click();
    await waitForText(page(), '.shown-once [role=status]', (t) => t === 'Copied.');
    expect(await page().evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(secret);
    await page().waitForSelector('td:has-text("Billing system")');
    await checkBothWidths('keys-created');

    const stored = ((await consoleGet('/keys')).items as { name: string | null; display_prefix: string; last_used_at: string | null }[]).find((k) => k.name === 'Billing system')!;
    expect(stored).toMatchObject({ display_prefix: secret.slice(0, 13), last_used_at: null });
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await bodyText()).not.toContain(secret.slice(9));

    // Used once: the list says when, and the secret is never shown again.
    expect((await request(api.server).get('/api/v1/ping').set(bearer(secret))).status).toBe(200);
    await eventually(async () => ((await consoleGet('/keys')).items as { name: string | null; last_used_at: string | null }[]).find((k) => k.name === 'Billing system')!.last_used_at, 'the key’s use to be recorded', 30_000);
    await open('/keys');
    const row = page().locator('tr', { has: page().locator('td:has-text("Billing system")') });
    await row.waitFor();
    expect(await row.locator('td[data-label="Last used"] time').count()).toBe(1);
    expect(await bodyText()).not.toContain(secret.slice(9));
    await checkBothWidths('keys');
  });

  it('adds an endpoint with chosen events; shows its success rate and a pending delivery’s next try; changes its events, disables it, deletes it', async () => {
    await open('/webhooks');
    await page().getByRole('region', { name: 'No webhook endpoints yet' }).waitFor();
    await page().waitForSelector('fieldset.event-choice label.scope');
    await page().fill('#webhook-url', receiver.url('/orders'));
    await page().check('fieldset.event-choice label.scope:has-text("call.ended") input');
    await page().check('fieldset.event-choice label.scope:has-text("ticket.created") input');
    await page().click('button:has-text("Add endpoint")');
    const shown = page().getByRole('region', { name: `Signing secret for ${receiver.url('/orders')}` });
    await shown.waitFor();
    expect(await shown.getByRole('button', { name: /^Copy/ }).count()).toBe(1);
    await shown.getByRole('button', { name: 'I have copied it' }).click();

    const endpoint = page().getByRole('region', { name: `Endpoint ${receiver.url('/orders')}` });
    await endpoint.waitFor();
    const [stored] = (await consoleGet('/webhooks')).items as { webhook_id: string; event_types: string[]; enabled: boolean }[];
    expect(stored).toMatchObject({ event_types: ['call.ended', 'ticket.created'], enabled: true });
    expect(await endpoint.locator('dl.facts').textContent()).toContain('call.ended, ticket.created');
    expect(await endpoint.locator('dl.facts').textContent()).toContain('nothing sent in the last 24 hours');

    // Two pings: the first answered 200, the second 500 twice, so it waits 30 s for its third try.
    await endpoint.getByRole('button', { name: 'Send test ping' }).click();
    await receiver.waitFor(() => true, 1);
    await endpoint.getByRole('button', { name: 'Send test ping' }).click();
    await eventually(async () => (await consoleGet(`/webhooks/${stored!.webhook_id}`)).success_rate.attempts === 3, 'three attempts counted', 30_000);
    await open('/webhooks');
    await waitForText(page(), 'section.endpoint dl.facts', (t) => t.includes('33.3% answered 2xx (1 of 3 attempts in the last 24 hours)'));
    await waitForText(page(), 'section.endpoint td[data-label="Status"]', (t) => /^pending, next try \S/.test(t));
    await checkBothWidths('webhooks-endpoint');

    await endpoint.getByRole('button', { name: 'Change events' }).click();
    const editor = page().getByRole('form', { name: `Events of ${receiver.url('/orders')}` });
    await editor.locator('label.scope:has-text("ticket.created") input').uncheck();
    await editor.getByRole('button', { name: 'Save events' }).click();
    await eventually(async () => ((await consoleGet(`/webhooks/${stored!.webhook_id}`)) as { event_types: string[] }).event_types.join() === 'call.ended', 'the events to be changed', 30_000);
    await waitForText(page(), 'section.endpoint dl.facts', (t) => t.includes('Eventscall.ended'));

    await endpoint.getByRole('button', { name: 'Disable' }).click();
    await endpoint.getByRole('button', { name: 'Enable' }).waitFor();
    expect(((await consoleGet(`/webhooks/${stored!.webhook_id}`)) as { enabled: boolean }).enabled).toBe(false);
    expect(await endpoint.locator('dl.facts').textContent()).toContain('Disabled: nothing is sent to it');
    await checkBothWidths('webhooks-disabled');

    await endpoint.getByRole('button', { name: 'Delete' }).click();
    const dialog = page().getByRole('dialog', { name: `Delete the endpoint ${receiver.url('/orders')}?` });
    await dialog.waitFor();
    await screenshot(page(), 'webhooks-delete-confirm', { fullPage: false });
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await page().getByRole('region', { name: 'No webhook endpoints yet' }).waitFor();
    expect((await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/webhooks/${stored!.webhook_id}`).set(bearer(api.config.CONSOLE_TOKEN!))).status).toBe(404);
  });
});
