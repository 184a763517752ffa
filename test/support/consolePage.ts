import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { useTestApi, type TestApi, type TestApiFixtureOptions } from './app';
import { launchBrowser, logIn, screenshot, seriousA11yViolations, type TestBrowser } from './browser';
import type { TestWorkspace } from './workspaces';

export interface ConsolePageFixture {
  api: TestApi;
  ws: TestWorkspace;
  /** The browser's page, logged into the console. */
  page: () => Page;
  /** The API's origin (`http://127.0.0.1:<port>`). */
  base: () => string;
}

/**
 * A web-console test file's set-up: its API and workspace (useTestApi) and a chromium logged
 * into the console; `acceptDialogs` accepts the page's confirmation dialogs. The browser is
 * closed first: afterAll hooks run in the order declared, and a page that polls must stop
 * before the API and worker it talks to.
 */
export function useConsolePage(options: TestApiFixtureOptions & { acceptDialogs?: boolean } = {}): ConsolePageFixture {
  const { acceptDialogs, ...apiOptions } = options;
  let browser: TestBrowser | undefined;
  let base = '';
  afterAll(async () => {
    await browser?.close();
  });
  const { api, ws } = useTestApi(apiOptions);
  beforeAll(async () => {
    base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    if (acceptDialogs) browser.page.on('dialog', (dialog) => void dialog.accept());
    await logIn(browser.page, base, api.config.CONSOLE_TOKEN!);
  });
  return {
    api,
    ws,
    page: () => {
      if (!browser) throw new Error('the console page is used before its beforeAll ran');
      return browser.page;
    },
    base: () => base,
  };
}

/**
 * The page at a phone's width (390 px): its screenshot, nothing wider than the screen,
 * axe-core clean; then back to the desktop. `settle` runs before the screenshot (a chart
 * following its container's width, say).
 */
export async function atPhoneWidth(page: Page, screenshotName: string, settle?: () => Promise<unknown>): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await settle?.();
  await screenshot(page, screenshotName);
  expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
}
