/**
 * The web UI's figures (issue 6), measured in Debian's Chromium (playwright-core, which never downloads a browser):
 *
 * - first page: from navigation start (the document's time origin) to the moment the Runs view's first page of
 *   runs is on screen. The page marks `chainflow:runs-first-paint` in the first task after the animation frame
 *   that follows appending the rows (so after that frame was rendered); `chainflow:runs-first-page` (rows in the
 *   DOM) comes a frame earlier. Each sample is a fresh navigation of a warm tab from about:blank to `/#/runs`,
 *   so the HTML, its parse, the modules and the API call (`/api/history/runs?limit=50`) are all in it. The assets
 *   are in the browser's cache by then (immutable under their versioned path), as for anyone who opened the page
 *   before; the shell is revalidated each time. The very first visit, with an empty cache, is reported apart.
 *   No request is intercepted (Playwright's routing would turn the HTTP cache off): stray requests are recorded
 *   and fail the bench instead; the page's CSP allows none anyway.
 * - page weight: the bytes of every file of the page, as Chromium fetched them on the first visit and then on a
 *   visit of every view of the menu and of a run's detail (a view's module loads when the view is first shown): the HTML shell (`GET /`), its stylesheet and every ES module (API answers and
 *   `data:` URLs not counted).
 *
 * The server must have authentication off (the bench's config); with it on the page would wait at the login card.
 */
import { chromium, type Page, type Response } from 'playwright-core';

export const UI_FIRST_PAGE_TARGET_MS = 300;
export const UI_PAGE_BYTES_TARGET = 250 * 1024;

export interface UiFigures {
  /** Navigation to the first page of runs on screen, revisits (assets cached). */
  readonly firstPageMs: { p50: number; max: number; samples: number };
  /** The same on the very first visit, with an empty cache. */
  readonly coldFirstPageMs: number;
  /** Bytes of all the page's files (shell, stylesheet, modules). */
  readonly pageBytes: number;
  /** How many files that is. */
  readonly pageFiles: number;
}

export interface UiOptions {
  /** Timed navigations. Default 10. */
  readonly samples?: number;
  /** Untimed navigations first (browser and server caches, JIT). Default 2. */
  readonly warmup?: number;
  /** Default `CHROMIUM_PATH` or /usr/bin/chromium. */
  readonly executablePath?: string;
}

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

/**
 * Runs in the page (a function, not a string: the page's CSP forbids eval): the paint mark's time since
 * navigation start, or false while it is not there yet. The bench compiles without the DOM library.
 */
const paintMark = (): number | false => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const m = (globalThis as any).performance.getEntriesByName('chainflow:runs-first-paint')[0];
  return m ? (m.startTime as number) : false;
};

async function firstPaint(page: Page): Promise<number> {
  const handle = await page.waitForFunction(paintMark, undefined, { timeout: 30_000, polling: 20 }).catch(async (err: unknown) => {
    const state = await page.locator('main').getAttribute('data-state').catch(() => null);
    throw new Error(`the Runs view did not render its first page (state: ${state}): ${err instanceof Error ? err.message : String(err)}`);
  });
  return (await handle.jsonValue()) as number;
}

export async function measureUi(baseUrl: string, options: UiOptions = {}): Promise<UiFigures> {
  const samples = options.samples ?? 10;
  const warmup = options.warmup ?? 2;
  const browser = await chromium.launch({ executablePath: options.executablePath ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const origin = new URL(baseUrl).origin;
    const stray: string[] = [];
    context.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(origin) && !url.startsWith('data:')) stray.push(url);
    });
    const page = await context.newPage();
    // The first visit (empty cache), then every view of the menu: every file of the page and its size.
    const files = new Map<string, Promise<number>>();
    const refused: string[] = [];
    const onResponse = (r: Response): void => {
      const u = new URL(r.url());
      if (u.protocol === 'data:' || u.pathname.startsWith('/api/')) return;
      if (r.status() === 200) files.set(u.pathname, r.body().then((b) => b.byteLength));
      else refused.push(`${u.pathname} answered ${r.status()}`);
    };
    page.on('response', onResponse);
    await page.goto(`${baseUrl}/#/runs`);
    const coldFirstPageMs = await firstPaint(page);
    // Views load their module when first shown: every view of the menu, and a run's detail.
    const runHref = await page.locator('main tr[data-run] a').first().getAttribute('href');
    const hrefs = await page.locator('#nav a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    for (const href of [...hrefs, runHref]) {
      await page.goto(`${baseUrl}/${href}`);
      await page.waitForSelector('main:not([data-state="loading"])', { state: 'attached', timeout: 30_000 });
    }
    page.off('response', onResponse);
    if (refused.length) throw new Error(`the page's files: ${refused.join(', ')}`);
    const pageBytes = (await Promise.all(files.values())).reduce((a, b) => a + b, 0);
    const pageFiles = files.size;

    const times: number[] = [];
    for (let i = 0; i < warmup + samples; i++) {
      await page.goto('about:blank');
      await page.goto(`${baseUrl}/#/runs`);
      const ms = await firstPaint(page);
      if (i >= warmup) times.push(ms);
    }
    await context.close();
    if (stray.length) throw new Error(`the page requested other origins: ${stray.join(', ')}`);
    const sorted = [...times].sort((a, b) => a - b);
    const p50 = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
    return {
      firstPageMs: { p50: round(p50), max: round(sorted[sorted.length - 1]!), samples: times.length }, coldFirstPageMs: round(coldFirstPageMs), pageBytes, pageFiles,
    };
  } finally {
    await browser.close();
  }
}

const round = (ms: number): number => Math.round(ms * 10) / 10;
