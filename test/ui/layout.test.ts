/**
 * What a careful operator found on a 1440 px laptop screen (issue 13): tables wider than the screen once values are
 * long (the workflows' lag, the spend tables' reverted loss, approval reasons, idempotency keys), and spend tiles with
 * 17 decimals. The page shows what a person reads at a glance; the exact value stays one click away (its copy
 * button, its tooltip). Real Chromium, real server, a journal with values as long as the API allows.
 */
import type { Browser, Page } from 'playwright-core';
import { aRun, aTimedRun, aTxHash, aWorkflowState, HOUR } from '../mothers/journal-events';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Ids and names may be 128 characters (the id pattern). */
const LONG_WORKFLOW = `treasury-${'rebalance-'.repeat(11)}x`.slice(0, 100);
const LONG_RELAYER = `hot-wallet-${'eu-west-'.repeat(6)}1`;
const LONG_KEY = `${LONG_WORKFLOW}:r0kxq2m8d1-7f3c9a1e5b:submit_tx:attempt-1`.slice(0, 128);
const REASON = 'Checked the destination against the treasury allow-list and the amount against the signed payout batch; '.repeat(5)
  + 'ref:' + 'f'.repeat(160);
const CURSOR = 19_234_567_890;
const HEAD = 19_234_600_321;
/** A reverted send whose gas cost has every one of its 18 decimals (issue 13's "17 decimals" and more). */
const GAS_USED = '2345678';
const GAS_PRICE = '123456789012';
const REVERTED_WEI = (BigInt(GAS_USED) * BigInt(GAS_PRICE)).toString();
const VALUE_WEI = '123456789012345678901234';

describe('web UI: at a glance on a 1440 px screen', () => {
  let srv: TestServer;
  let browser: Browser;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startTestServer(), launchBrowser()]);
    const now = Date.now();
    await srv.append([
      aWorkflowState({ workflow: 'keeper', at: now - HOUR, trigger: 'event', network: 'mainnet', cursorBlock: CURSOR, headBlock: HEAD }),
      ...aTimedRun({ runId: 'layout-timed', workflow: 'keeper', at: now - 2 * HOUR, durationMs: 179_999 }),
      ...aRun({
        runId: 'layout-0001', workflow: LONG_WORKFLOW, at: now - 3 * HOUR, network: 'sepolia',
        approval: { message: `Pay ${VALUE_WEI} wei to the treasury multisig after the quarterly rebalance?`, decision: 'approved', by: 'alice@example.org', reason: REASON },
        send: {
          relayer: LONG_RELAYER, idempotencyKey: LONG_KEY, valueWei: VALUE_WEI, outcome: 'reverted', txHash: aTxHash('layout'),
          receipt: { gasUsed: GAS_USED, effectiveGasPrice: GAS_PRICE },
        },
      }),
      ...aRun({ runId: 'layout-0002', workflow: LONG_WORKFLOW, at: now - 4 * HOUR, approval: { message: REASON }, park: { waitKind: 'approval' } }),
    ]);
  });

  afterEach(() => checkAndCloseTabs(tabs));

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function visit(hash: string, view: string): Promise<Page> {
    const t = await openTab(browser, { viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    tabs.push(t);
    await t.page.goto(`${srv.baseUrl}/${hash}`);
    await waitForView(t.page, view);
    return t.page;
  }

  /** Every table of the view and the page itself: how much wider than its box each is (0: it fits). */
  const overflow = (page: Page): Promise<Record<string, number>> => page.evaluate(() => {
    const d = (globalThis as Json).document;
    const out: Record<string, number> = { page: d.documentElement.scrollWidth - d.documentElement.clientWidth };
    [...d.querySelectorAll('main .tablewrap')].forEach((w: Json, i: number) => {
      const name = (w.closest('section[data-dim]')?.dataset.dim ?? '') + '#' + i;
      out[name] = w.scrollWidth - w.clientWidth;
    });
    return out;
  });
  const fits = (o: Record<string, number>): Record<string, number> => Object.fromEntries(Object.keys(o).map((k) => [k, 0]));

  test('no table is wider than the screen: workflows (lag), approvals (reason), transactions (idempotency key), spend (reverted loss), runs, run detail', async () => {
    for (const [hash, view] of [['#/workflows', 'workflows'], ['#/approvals', 'approvals'], ['#/txs', 'txs'], ['#/spend', 'spend'], ['#/runs', 'runs'], ['#/run/layout-0001', 'run'], ['#/waiting', 'waiting']]) {
      const page = await visit(hash!, view!);
      const o = await overflow(page);
      expect(Object.keys(o).length).toBeGreaterThan(1);
      expect({ view, overflow: o }).toEqual({ view, overflow: fits(o) });
    }
  });

  test('the exact value is one click away: the key and ids copy whole, the lag names both blocks, amounts hold their wei', async () => {
    let page = await visit('#/txs', 'txs');
    const key = page.locator('main tbody code', { hasText: LONG_KEY });
    await expect(key.getAttribute('title')).resolves.toBe(LONG_KEY);
    await key.locator('xpath=following-sibling::button[contains(@class,"copy")]').click();
    await expect(page.evaluate(() => (globalThis as Json).navigator.clipboard.readText())).resolves.toBe(LONG_KEY);
    const value = page.locator('main tbody td.num .amt');
    await expect(value.getAttribute('title')).resolves.toBe(`123,456.789012345678901234 ETH\n${VALUE_WEI} wei`);
    await expect(value.innerText()).resolves.toBe('\u2248\u2009123,457');

    page = await visit('#/workflows', 'workflows');
    const row = page.locator('main section.list tbody tr[data-workflow=keeper]');
    const lag = row.locator('td').last();
    await expect(lag.innerText()).resolves.toBe((HEAD - CURSOR).toLocaleString('en-US'));
    await expect(lag.locator('span').getAttribute('title')).resolves.toBe(`cursor block ${CURSOR.toLocaleString('en-US')} / head block ${HEAD.toLocaleString('en-US')}`);
    // a duration reads in minutes and seconds, the milliseconds the API gave in the tooltip
    const item = (await srv.get('/api/history/workflows')).body.items.find((w: Json) => w.workflow === 'keeper');
    const median = row.locator('td .dur').first();
    await expect(median.getAttribute('title')).resolves.toBe(`${item.median_duration_ms.toLocaleString('en-US')} ms`);
    await expect(median.innerText()).resolves.toMatch(/^3 min [0-5]?\d s$/);
  });

  test('spend tiles read at a glance (four significant digits, ≈ when rounded); the exact wei is in the tooltip and on the copy button', async () => {
    const spend = (await srv.get('/api/spend')).body;
    expect(spend.summary.total.reverted_gas_wei).toBe(REVERTED_WEI);
    const page = await visit('#/spend', 'spend');
    const loss = page.locator('main .tile.loss');
    // 289,589,873,936,090,136 wei = 0.289589873936090136 ETH: shown 0.2896
    await expect(loss.locator('.v').innerText()).resolves.toBe('\u2248\u20090.2896 ETH');
    await expect(loss.locator('.amt').getAttribute('title')).resolves.toBe(`0.${REVERTED_WEI.padStart(18, '0')} ETH\n${REVERTED_WEI} wei`);
    await loss.locator('button.copy').click();
    await expect(page.evaluate(() => (globalThis as Json).navigator.clipboard.readText())).resolves.toBe(REVERTED_WEI);
    for (const text of await page.locator('main .tile .v').allInnerTexts()) expect(text.replace(/\D/g, '').length).toBeLessThanOrEqual(8);
  });
});
