/**
 * Untrusted run data is rendered as text only (SPEC, What the service does 6): HTML and script payloads in
 * trigger payloads, step inputs and outputs, HTTP bodies, errors, approval messages and reasons, names, hashes
 * and explorer URLs never become elements and never run. The browser context bypasses the page's CSP, so that
 * only the page's own rendering stands between the data and the DOM: these tests would catch an innerHTML.
 */
import type { Browser, Page } from 'playwright-core';
import { aRun } from '../mothers/journal-events';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const IMG = '<img src=x onerror="window.__xss=1">';
const SCRIPT = '<script>window.__xss=1</script>';
const JS_URL = 'javascript:window.__xss=1';
const SVG = '<svg onload="window.__xss=1"></svg>';
const IFRAME = '<iframe src="javascript:window.__xss=1"></iframe>';
const BREAKOUT = '"><img src=x onerror=window.__xss=1>';
const HTML_BODY = `<!doctype html><html><body>${IMG}${SCRIPT}<a href="${JS_URL}">x</a></body></html>`;
/** How a string shows inside a JSON block (quotes escaped). */
const inJson = (s: string): string => JSON.stringify(s).slice(1, -1);

const WORKFLOW = `wf${IMG}`;
const RELAYER = `ops${SCRIPT}`;

describe('web UI: untrusted run data is text, never HTML or script', () => {
  let srv: TestServer;
  let browser: Browser;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startTestServer(), launchBrowser()]);
    const at = Date.now() - 3_600_000;
    await srv.append([
      ...aRun({
        runId: 'xss-0001', workflow: WORKFLOW, at, network: 'sepolia', contract: BREAKOUT,
        trigger: { kind: 'webhook', summary: IMG, payload: { body: SCRIPT, url: JS_URL, html: HTML_BODY } },
        conditions: [{ name: SVG, passed: false, detail: { why: BREAKOUT } }],
        steps: [{
          stepId: 'fetch_page', stepType: 'http_call', input: { url: JS_URL, body: IFRAME }, failedAttempts: 1,
          retryError: { kind: 'http_error', message: IFRAME }, output: { status: 500, body: HTML_BODY }, error: { kind: 'http_error', message: SVG },
        }],
        approval: { message: IFRAME, decision: 'rejected', by: BREAKOUT, reason: SCRIPT },
        send: { relayer: RELAYER, to: IMG, idempotencyKey: SCRIPT, txHash: `0x${IMG}`, valueWei: '1000' },
        reorg: { steps: [{ stepId: 'recheck', output: { body: SCRIPT }, error: { kind: 'reorg_error', message: IMG } }] },
      }),
      ...aRun({
        runId: 'xss-0002', workflow: WORKFLOW, at: at + 60_000,
        trigger: { kind: 'webhook', summary: SCRIPT, payload: { body: IMG } },
        steps: [{ stepId: 'fetch_page', stepType: 'http_call', output: { status: 200, body: SVG } }],
        failure: { kind: `kind${IMG}`, message: SCRIPT },
      }),
      ...aRun({ runId: 'xss-0003', workflow: WORKFLOW, at: at + 120_000, approval: { message: HTML_BODY }, park: { waitKind: 'approval' } }),
    ]);
  });

  afterEach(() => checkAndCloseTabs(tabs));

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function visit(hash: string, view: string, state: 'ready' | 'error' = 'ready', stub?: (t: Tab) => Promise<unknown>): Promise<Page> {
    const t = await openTab(browser, { bypassCSP: true });
    tabs.push(t);
    if (stub) await stub(t);
    await t.page.goto(`${srv.baseUrl}/${hash}`);
    await waitForView(t.page, view, state);
    // let anything that would fire (an image error, a load event) have its chance
    await t.page.waitForTimeout(150);
    return t.page;
  }

  /** Nothing ran, nothing was injected: no handler attribute, no foreign element, no non-http(s) link. */
  async function expectInert(page: Page): Promise<void> {
    const state = await page.evaluate(() => {
      const g = globalThis as Json;
      const d = g.document;
      return {
        xss: g.__xss ?? null,
        scripts: d.scripts.length,
        injected: [...d.querySelectorAll('img, iframe, svg, object, embed, video, audio, form:not(.filters):not(.login):not(.ask), base, meta[http-equiv]')].map((e: Json) => e.outerHTML),
        // (the shell's skip link, `#main`, aside: it is no data)
        links: [...d.querySelectorAll('a[href]:not(#skip)')].map((a: Json) => a.getAttribute('href')).filter((h: string) => !/^(https?:\/\/|#\/)/.test(h)),
        handlers: [...d.querySelectorAll('*')].flatMap((el: Json) => [...el.attributes].map((a: Json) => a.name)).filter((n: string) => n.startsWith('on')),
      };
    });
    expect(state).toEqual({ xss: null, scripts: 1, injected: [], links: [], handlers: [] });
  }

  const mainText = (page: Page): Promise<string> => page.locator('main').innerText();

  test('run detail: trigger, conditions, step input/output (an HTML body), errors, attempts, approval, send and reorg step show as text', async () => {
    const page = await visit('#/run/xss-0001', 'run');
    await expectInert(page);
    const text = await mainText(page);
    for (const literal of [IMG, SVG, IFRAME, BREAKOUT, SCRIPT, WORKFLOW, RELAYER, `0x${IMG}`]) expect(text).toContain(literal);
    for (const literal of [SCRIPT, JS_URL, inJson(HTML_BODY), inJson(IFRAME), inJson(BREAKOUT)]) expect(text).toContain(literal);
    // the explorer link of the odd hash still points at the explorer, over https (and the reorg's block too)
    const hrefs = await page.locator('main a.ext').evaluateAll((as) => as.map((a) => (a as Json).href));
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href).toMatch(/^https:\/\/sepolia\.etherscan\.io\/(tx|block)\//);
    expect(hrefs.some((href) => href.includes('/tx/'))).toBe(true);
  });

  test('lists: runs, failures, transactions, approvals, reorgs, workflows, spend and compare show the payloads as text', async () => {
    const cases: [string, string, string[]][] = [
      ['#/runs', 'runs', [WORKFLOW, RELAYER, `kind${IMG}`]],
      ['#/failures', 'failures', [WORKFLOW, `kind${IMG}`]],
      ['#/txs', 'txs', [WORKFLOW, RELAYER, IMG, SCRIPT, `0x${IMG}`]],
      ['#/approvals', 'approvals', [WORKFLOW, IFRAME, BREAKOUT, SCRIPT]],
      ['#/reorgs', 'reorgs', [WORKFLOW, IMG, inJson(SCRIPT)]],
      ['#/workflows', 'workflows', [WORKFLOW, `kind${IMG}`]],
      ['#/spend', 'spend', [WORKFLOW, RELAYER, `0x${IMG}`]],
      ['#/compare?a=xss-0001&b=xss-0002', 'compare', [IMG, SCRIPT, SVG]],
    ];
    for (const [hash, view, literals] of cases) {
      const page = await visit(hash, view);
      await expectInert(page);
      const text = await mainText(page);
      for (const literal of literals) expect({ view, has: text.includes(literal), literal }).toEqual({ view, has: true, literal });
    }
  });

  test('the approval dialog shows the pending approval\'s message and workflow as text', async () => {
    const page = await visit('#/approvals?status=pending', 'approvals');
    await page.locator('main tr[data-approval] button[data-act=approve]').click();
    const dialog = page.locator('dialog#ask');
    await expect(dialog.isVisible()).resolves.toBe(true);
    await page.waitForTimeout(150);
    await expectInert(page);
    const text = await dialog.innerText();
    expect(text).toContain(HTML_BODY);
    expect(text).toContain(WORKFLOW);
    await dialog.getByRole('button', { name: 'Back' }).click();
  });

  test('links built from data stay inside the page: a workflow or relayer name becomes an encoded hash filter', async () => {
    const page = await visit('#/runs', 'runs');
    await page.locator('main a', { hasText: RELAYER }).first().click();
    await waitForView(page, 'runs');
    await expectInert(page);
    expect(new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('relayer')).toBe(RELAYER);
    await expect(page.locator('form.filters input[name=relayer]').inputValue()).resolves.toBe(RELAYER);
    await expect(page.locator('main tr[data-run]').count()).resolves.toBe(1);
  });

  test('the address itself is data too: payloads in the hash show as text or as a refused request', async () => {
    let page = await visit(`#/run/${encodeURIComponent(IMG)}`, 'run', 'error');
    await expectInert(page);
    await expect(page.locator('main .notice.error').innerText()).resolves.toContain('400');
    page = await visit(`#/runs?workflow=${encodeURIComponent(SCRIPT)}&trigger=${encodeURIComponent(IMG)}`, 'runs');
    await expectInert(page);
    await expect(page.locator('form.filters input[name=workflow]').inputValue()).resolves.toBe(SCRIPT);
    await expect(page.locator('form.filters input[name=trigger]').inputValue()).resolves.toBe(IMG);
    page = await visit(`#/${encodeURIComponent(IMG)}`, 'unknown', 'error');
    await expectInert(page);
  });

  test('an explorer URL that is not http(s) is never a link: the hash shows with a copy button only', async () => {
    const item = {
      send_id: 'stub-send', run_id: 'xss-0001', step_run_id: 'xss-0001.submit_tx', workflow: 'payouts', session: 'live', network: 'sepolia',
      chain_id: 11155111, relayer: 'ops', status: 'settled', outcome: 'confirmed', tx_hash: '0xabc', idempotency_key: 'k', to: '0x01',
      value_wei: '1', created_at: new Date().toISOString(), updated_at: new Date().toISOString(),
    };
    const urls = [JS_URL, 'JaVaScRiPt:window.__xss=1', ' javascript:window.__xss=1', 'data:text/html,<script>window.__xss=1</script>', 'vbscript:x', '//evil.example/x', '/relative'];
    const page = await visit('#/txs', 'txs', 'ready', (t) => t.page.route('**/api/history/txs*', (route) => route.fulfill({
      status: 200, contentType: 'application/json',
      body: JSON.stringify({ items: urls.map((u, i) => ({ ...item, send_id: `stub-${i}`, tx_hash: `0xabc${i}`, explorer_url: u })), cursor: null, has_more: false }),
    })));
    await expectInert(page);
    await expect(page.locator('main tbody tr').count()).resolves.toBe(urls.length);
    await expect(page.locator('main tbody a.ext').count()).resolves.toBe(0);
    await expect(page.locator('main tbody code', { hasText: /^0xabc\d$/ }).count()).resolves.toBe(urls.length);
    await page.locator('main tbody code', { hasText: '0xabc0' }).click();
    await page.waitForTimeout(100);
    await expectInert(page);
  });
});
