/**
 * Test support for the page's accessibility tests: axe-core's verdict on a page, where focus is, and a server with
 * `chainflow demo`'s journal plus an engine running two workflows for the operator's commands.
 *
 *   const srv = await startDemoWithCommands();
 *   const runId = await parkedRun(srv, 'a11y-nap');
 *   expect(await seriousViolations(page)).toEqual([]);
 *   await focusComesTo(page, 'main h1');
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { WriteDemoJournal } from '../../src/application/journal/demo-journal.use-case';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from './browser';
import { eventually } from './process';
import { startTestServer, type TestServer } from './server';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const AXE = require.resolve('axe-core/axe.min.js');

export interface Violation { readonly rule: string; readonly impact: string; readonly nodes: string[] }

/**
 * axe-core's serious and critical violations on the page as it is now, with the target-size rule (WCAG 2.2 AA, 24 px)
 * switched on (axe leaves it off by default). The page's tab must bypass the CSP (`openTab(browser, { bypassCSP: true })`)
 * for the script to be injected.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.addScriptTag({ path: AXE });
  const violations: Json[] = await page.evaluate(async () => (await (globalThis as Json).axe.run((globalThis as Json).document, {
    resultTypes: ['violations'], rules: { 'target-size': { enabled: true } },
  })).violations);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n: Json) => n.target.join(' ')) }));
}

/** What the focused element is, in words a failing test can show. */
export const focused = (page: Page): Promise<string> => page.evaluate(() => {
  const a = (globalThis as Json).document.activeElement;
  if (!a) return 'nothing';
  const bits = [a.tagName.toLowerCase()];
  for (const k of ['name', 'data-focus', 'data-act', 'data-approval', 'data-run']) if (a.getAttribute(k)) bits.push(`[${k}=${a.getAttribute(k)}]`);
  return bits.join('') + (a.tagName === 'BODY' ? '' : ` "${String(a.innerText || a.value || '').trim().slice(0, 40)}"`);
});

/** Waits (up to 10 s) until the focused element matches `selector`, then checks it does, saying what has focus. */
export async function focusComesTo(page: Page, selector: string): Promise<void> {
  await page.waitForFunction((sel) => (globalThis as Json).document.activeElement?.matches(sel), selector, { timeout: 10_000 }).catch(() => undefined);
  const now = await focused(page);
  const matches = await page.evaluate((sel) => !!(globalThis as Json).document.activeElement?.matches(sel), selector);
  expect({ selector, focused: now, matches }).toEqual({ selector, focused: now, matches: true });
}

/**
 * A server (auth off) with the demo journal and two manual workflows in its engine: `a11y-approve` parks on an
 * approval, `a11y-nap` on a one-hour delay.
 */
export async function startDemoWithCommands(): Promise<TestServer> {
  const srv = await startTestServer({
    config: {
      engine: { poll_interval: '1s' },
      workflows: {
        'a11y-approve': { trigger: { kind: 'manual' }, steps: [{ id: 'approve', type: 'approval', message: 'Pay 250 wei?' }] },
        'a11y-nap': { trigger: { kind: 'manual' }, steps: [{ id: 'nap', type: 'delay', duration: '1h' }] },
      },
    },
  });
  await srv.root.container.get(WriteDemoJournal).execute();
  return srv;
}

/** A JSON call to the server's API. */
export async function call(srv: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${srv.baseUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The run item of `runId`, as the API has it now. */
export const runOf = async (srv: TestServer, runId: string): Promise<Json> => (await call(srv, 'GET', `/api/history/runs?run_id=${runId}`)).body.items[0];

/** Starts a manual run of `workflow` and waits until the engine parked it. */
export async function parkedRun(srv: TestServer, workflow: string): Promise<string> {
  const started = await call(srv, 'POST', `/api/workflows/${workflow}/runs`, {});
  expect(started.status).toBe(202);
  const runId: string = started.body.run_id;
  await eventually(async () => ((await runOf(srv, runId))?.status === 'waiting' ? true : undefined), 15_000, `run ${runId} to park`);
  return runId;
}

/** The pages of one describe block over startDemoWithCommands' server, in one browser. */
export interface DemoPages {
  /** The server (set once the block's beforeAll ran). */
  server(): TestServer;
  /** A tab on `hash` in `theme` (the system's setting, which the page follows); CSP bypassed for axe. */
  visit(hash: string, view: string, theme?: 'light' | 'dark'): Promise<Page>;
  /** The page's one dialog (confirmations, reasons). */
  dialog(page: Page): Locator;
  /** Checks the tabs opened so far (no page error, nothing off host) and closes them. */
  closeTabs(): Promise<void>;
}

/** Registers the block's hooks: the server and browser before all, the tabs checked and closed after each test. */
export function demoPages(): DemoPages {
  let srv: TestServer;
  let browser: Browser;
  const tabs: Tab[] = [];
  beforeAll(async () => {
    [srv, browser] = await Promise.all([startDemoWithCommands(), launchBrowser()]);
  });
  afterEach(() => checkAndCloseTabs(tabs));
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });
  return {
    server: () => srv,
    visit: async (hash, view, theme = 'light') => {
      const t = await openTab(browser, { colorScheme: theme, bypassCSP: true });
      tabs.push(t);
      await t.page.goto(`${srv.baseUrl}/${hash}`);
      await waitForView(t.page, view);
      return t.page;
    },
    dialog: (page) => page.locator('dialog#ask'),
    closeTabs: () => checkAndCloseTabs(tabs),
  };
}
