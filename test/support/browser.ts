/**
 * Test support: Debian's Chromium driven by playwright-core (which never downloads a browser).
 *
 *   const browser = await launchBrowser();
 *   const tab = await openTab(browser);
 *   await tab.page.goto(`${srv.baseUrl}/#/runs`);
 *   await waitForView(tab.page, 'runs');
 *   expect(tab.offHost()).toEqual([]);
 *   await tab.close(); await browser.close();
 */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

/** The system Chromium (`apt-get install chromium`); `CHROMIUM_PATH` overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless, no sandbox (CI containers run as root), and none of Chromium's own background traffic. */
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}

export interface Tab {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every URL the page requested (main frame, fetches, anything else), in order. */
  readonly requests: string[];
  /** Every console message the page printed, as `type: text`. */
  readonly console: string[];
  /** Every dialog (alert, confirm, prompt) the page opened; each is dismissed. */
  readonly dialogs: string[];
  /** Uncaught errors thrown in the page. */
  readonly pageErrors: string[];
  /** Requested URLs that would have left 127.0.0.1 (those are aborted, never sent). */
  offHost(): string[];
  close(): Promise<void>;
}

/** `data:` URLs (the page's empty favicon) never leave the machine; anything else must be 127.0.0.1. */
export function isLocal(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'data:' || ((u.protocol === 'http:' || u.protocol === 'https:') && u.hostname === '127.0.0.1');
}

/**
 * A fresh context (own storage) and page. Every request is recorded, and one bound anywhere but 127.0.0.1 is
 * aborted before it is sent, so a test can assert afterwards that nothing tried to leave.
 */
export async function openTab(browser: Browser, options: BrowserContextOptions = {}): Promise<Tab> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...options });
  const requests: string[] = [];
  const consoleLines: string[] = [];
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  await context.route('**/*', (route) => (isLocal(route.request().url()) ? route.fallback() : route.abort('blockedbyclient')));
  context.on('request', (req) => void requests.push(req.url()));
  const page = await context.newPage();
  page.on('console', (msg) => void consoleLines.push(`${msg.type()}: ${msg.text()}`));
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss().catch(() => undefined);
  });
  page.on('pageerror', (err) => void pageErrors.push(String(err)));
  page.setDefaultTimeout(20_000);
  return {
    context, page, requests, console: consoleLines, dialogs, pageErrors,
    offHost: () => requests.filter((u) => !isLocal(u)),
    close: () => context.close(),
  };
}

/** Waits until the page has rendered `view` (the `main` element says which view and whether it is done). */
export async function waitForView(page: Page, view: string, state: 'ready' | 'error' | 'login' = 'ready'): Promise<void> {
  await page.waitForSelector(`main[data-view="${view}"][data-state="${state}"]`, { state: 'attached' });
}

/** The page's visible text of `main`. */
export function mainText(page: Page): Promise<string> {
  return page.locator('main').innerText();
}

/**
 * After a test: empties `tabs`, checks each (nothing left 127.0.0.1, no page error, no alert/confirm/prompt, and
 * whatever `also` checks), and closes them all even when a check fails.
 */
export async function checkAndCloseTabs(tabs: Tab[], also: (t: Tab) => void = () => undefined): Promise<void> {
  const opened = tabs.splice(0);
  try {
    for (const t of opened) {
      expect(t.offHost()).toEqual([]);
      expect(t.pageErrors).toEqual([]);
      expect(t.dialogs).toEqual([]);
      also(t);
    }
  } finally {
    await Promise.all(opened.map((t) => t.close()));
  }
}
