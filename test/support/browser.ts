import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { fromRoot } from '../../src/local/paths';

/**
 * The browser globals the functions passed to page.evaluate use: they run in the page, not
 * here. Declared in this module only, so Node code elsewhere cannot reach for them by mistake.
 */
interface PageElement {
  disabled?: boolean;
  checked?: boolean;
  tabIndex: number;
  textContent: string | null;
  value?: string;
  tagName: string;
  getBoundingClientRect(): { width: number; height: number };
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  getAttribute(name: string): string | null;
  blur(): void;
}
declare const document: { querySelectorAll(selector: string): Iterable<PageElement>; activeElement: PageElement | null };
declare function getComputedStyle(el: PageElement): { visibility: string; display: string };

/** Debian's chromium package (scripts/ensure-browser.sh installs it); playwright-core downloads nothing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Quiet, offline and reproducible: no GPU, no QUIC, no first-run, no background traffic, no updates, no sync. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOT_DIR = fromRoot('.test-data/screenshots');

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** A fresh chromium with a profile of its own (its `--user-data-dir`), removed on close. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: run scripts/ensure-browser.sh (apt-get install chromium)`);
  if (!existsSync(fromRoot('dist/console-web/index.html'))) throw new Error('dist/console-web is missing: run `npm run build:web` first (npm test does)');
  const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
  // A persistent context is how Playwright takes a --user-data-dir; a fresh folder makes it a fresh profile.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The whole page by default; `fullPage: false` takes the viewport, as a modal dialog and its backdrop cover it. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage });
}

const axeSource = () => readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations on the page as it stands. Injected by the
 * DevTools protocol (page.evaluate), which the page's CSP does not govern, so the CSP under
 * test stays as served.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource());
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Tabs through the page from the top and returns the controls Tab never reached: every
 * visible, enabled link, button, input and select must be reachable by keyboard alone.
 */
export async function controlsNotReachedByTab(page: Page): Promise<string[]> {
  const total = await page.evaluate(() => {
    // A probe of an earlier check of the same page (at another width, say) is not this one's.
    for (const el of [...document.querySelectorAll('[data-tab-probe]')]) el.removeAttribute('data-tab-probe');
    const controls = [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')].filter((el) => {
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      // A radio group is one Tab stop, its checked button (arrow keys move within it): the others are not Tab's to reach.
      const radio = el.tagName === 'INPUT' && el.getAttribute('type') === 'radio';
      if (radio && !el.checked && [...document.querySelectorAll(`input[type=radio][name="${el.getAttribute('name')}"]`)].some((other) => other.checked)) return false;
      return !el.disabled && style.visibility !== 'hidden' && style.display !== 'none' && box.width > 0 && box.height > 0 && el.tabIndex >= 0;
    });
    controls.forEach((el, i) => el.setAttribute('data-tab-probe', String(i)));
    document.activeElement?.blur();
    return controls.length;
  });
  const reached = new Set<string>();
  // A date or time input takes a Tab per part (day, month, year…), so a page may need more
  // presses than it has controls: keep going until every control was reached, within a bound.
  for (let i = 0; i < total * 4 + 3 && reached.size < total; i++) {
    await page.keyboard.press('Tab');
    const probe = await page.evaluate(() => document.activeElement?.getAttribute('data-tab-probe') ?? null);
    if (probe !== null) reached.add(probe);
  }
  return page.evaluate(
    (seen) =>
      [...document.querySelectorAll('[data-tab-probe]')]
        .filter((el) => !seen.includes(el.getAttribute('data-tab-probe')!))
        .map((el) => `${el.tagName.toLowerCase()} "${(el.textContent || el.value || '').trim().slice(0, 40)}"`),
    [...reached],
  );
}

/** Waits until the page's text at `selector` satisfies `ok`, re-reading as the page polls. */
export async function waitForText(page: Page, selector: string, ok: (text: string) => boolean, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    last = (await page.locator(selector).first().textContent({ timeout: timeoutMs }).catch(() => null)) ?? '';
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`${selector} stayed "${last}"`);
    await page.waitForTimeout(250);
  }
}

/**
 * The `attr` of each row under `selector` once they are exactly `expected` (or, after the
 * timeout, as they stand, for the caller's assertion to show). A filter's new rows replace the
 * old ones only after a "Loading" moment, so a check on the old rows' text can pass too soon.
 */
export async function waitForRows(page: Page, selector: string, attr: string, expected: string[], timeoutMs = 30_000): Promise<(string | null)[]> {
  const read = () => page.locator(selector).evaluateAll((rows, name) => rows.map((r) => r.getAttribute(name)), attr);
  const deadline = Date.now() + timeoutMs;
  let rows = await read();
  while (JSON.stringify(rows) !== JSON.stringify(expected) && Date.now() < deadline) {
    await page.waitForTimeout(250);
    rows = await read();
  }
  return rows;
}

/** What every console page must pass: its screenshot saved, axe-core clean of serious and critical issues, every control reachable by Tab. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  expect({ name, violations: await seriousA11yViolations(page) }).toEqual({ name, violations: [] });
  expect({ name, unreached: await controlsNotReachedByTab(page) }).toEqual({ name, unreached: [] });
}

/** Logs the browser in through the console's own form. */
export async function logIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.fill('#token', token);
  await page.press('#token', 'Enter');
  await page.waitForSelector('button:has-text("Log out")');
}
