/**
 * Chain events on the page (issue #28 part 5), in real Chromium on a real server: the run view shows the log that
 * started an event run (block, hash, time, transaction, log index, contract) with explorer links in a new tab, and
 * the reorg responses naming it; the reorgs view links both blocks. Links are reached by keyboard; axe-core finds no
 * serious or critical violation on either view in either theme. A network without a known explorer shows no link.
 */
import type { Browser, Page } from 'playwright-core';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { seriousViolations } from '../support/a11y';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const EXPLORER = 'https://explorer.devnet.example';
const hash = (c: string): string => `0x${c.repeat(64)}`;
const at = (s: number): string => new Date(Date.now() - 3_600_000 + s * 1000).toISOString();

function eventRun(runId: string, network: string, block: number, blockHash: string, txHash: string, s: number): JournalEvent[] {
  return [
    {
      type: 'run.started', at: at(s), run_id: runId, workflow: 'deposits', session: 'live',
      trigger: {
        kind: 'event', summary: `Transfer at block ${block}`, payload: { to: `0x${'7'.repeat(40)}`, value: '123456789012345678901' },
        block: { number: block, hash: blockHash, timestamp: 1_763_640_000 }, tx_hash: txHash, log: { address: TOKEN, log_index: 4 },
      },
      network, contract: TOKEN, block,
    },
    { type: 'run.finished', at: at(s + 1), run_id: runId, status: 'succeeded' },
  ] as JournalEvent[];
}

describe('web UI: chain events', () => {
  let srv: TestServer;
  let browser: Browser;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startTestServer({
      config: {
        networks: {
          devnet: { chain_id: 31337, rpc: [{ env: 'RPC' }], explorer: `${EXPLORER}/` },
          privnet: { chain_id: 987654, rpc: [{ env: 'RPC' }] },
        },
      },
      env: { RPC: 'http://127.0.0.1:1' },
    }), launchBrowser()]);
    await srv.append([
      ...eventRun('ui-ev-1', 'devnet', 118, hash('a'), hash('b'), 0),
      ...eventRun('ui-ev-priv', 'privnet', 50, hash('c'), hash('d'), 10),
      { type: 'reorg.response', at: at(20), reorg_id: 'ui-rg-1', run_id: 'ui-ev-1', workflow: 'deposits', network: 'devnet', block: 118, removed_block_hash: hash('a') },
      { type: 'reorg.step', at: at(21), reorg_id: 'ui-rg-1', step_id: 'undo', status: 'succeeded', output: { undone: true } },
    ] as JournalEvent[]);
  });
  afterEach(() => checkAndCloseTabs(tabs));
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  async function visit(hashRoute: string, view: string, theme: 'light' | 'dark' = 'light'): Promise<Page> {
    const t = await openTab(browser, { colorScheme: theme, bypassCSP: true });
    tabs.push(t);
    await t.page.goto(`${srv.baseUrl}/${hashRoute}`);
    await waitForView(t.page, view);
    return t.page;
  }

  const link = (page: Page, href: string) => page.locator(`main a[href="${href}"]`);

  test('the run view shows the log with explorer links opening in a new tab, and the reorg that removed its block', async () => {
    const page = await visit('#/run/ui-ev-1', 'run');
    const trigger = page.locator('main li.ev-trigger');
    const text = await trigger.innerText();
    expect(text).toContain('Log');
    expect(text).toContain('log index');
    expect(text).toMatch(/\b4\b/);
    // The block's hash is linked twice: the log's block, and the reorg's removed block (the same one).
    for (const [href, count] of [[`${EXPLORER}/tx/${hash('b')}`, 1], [`${EXPLORER}/block/${hash('a')}`, 2], [`${EXPLORER}/address/${TOKEN}`, 1]] as const) {
      const opens = await trigger.locator(`a[href="${href}"]`).evaluateAll((as) => as.map((a) => `${a.getAttribute('target')} ${a.getAttribute('rel')}`));
      expect({ href, opens }).toEqual({ href, opens: Array(count).fill('_blank noopener noreferrer') });
    }
    // The reorg linkage: the response's id, its blocks linked, and a link to the responses.
    const reorg = trigger.locator('tr[data-reorg="ui-rg-1"]');
    await expect(reorg.count()).resolves.toBe(1);
    await expect(reorg.locator(`a[href="${EXPLORER}/block/118"]`).count()).resolves.toBe(1);
    await expect(reorg.locator(`a[href="${EXPLORER}/block/${hash('a')}"]`).count()).resolves.toBe(1);
    await expect(reorg.locator('a[href^="#/reorgs?"]').getAttribute('href')).resolves.toBe('#/reorgs?workflow=deposits&network=devnet');
  });

  test('the reorgs view lists the response with its step and both blocks linked', async () => {
    const page = await visit('#/reorgs', 'reorgs');
    const row = page.locator('main tbody tr', { hasText: 'ui-rg-1' });
    await expect(row.innerText()).resolves.toContain('undo');
    await expect(row.locator(`a[href="${EXPLORER}/block/118"]`).getAttribute('target')).resolves.toBe('_blank');
    await expect(row.locator(`a[href="${EXPLORER}/block/${hash('a')}"]`).count()).resolves.toBe(1);
  });

  test('the explorer links are reached with Tab', async () => {
    const page = await visit('#/run/ui-ev-1', 'run');
    const wanted = new Set([`${EXPLORER}/tx/${hash('b')}`, `${EXPLORER}/block/${hash('a')}`, `${EXPLORER}/block/118`]);
    const reached = new Set<string>();
    for (let i = 0; i < 80 && reached.size < wanted.size; i++) {
      await page.keyboard.press('Tab');
      const href = await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document.activeElement?.getAttribute('href') ?? null);
      if (href && wanted.has(href)) reached.add(href);
    }
    expect([...reached].sort()).toEqual([...wanted].sort());
  });

  test('a network without a known explorer shows the hashes with copy buttons and no link', async () => {
    const page = await visit('#/run/ui-ev-priv', 'run');
    const trigger = page.locator('main li.ev-trigger');
    await expect(trigger.innerText()).resolves.toContain(hash('d'));
    await expect(trigger.locator('a.ext').count()).resolves.toBe(0);
    await expect(trigger.locator('button.copy[aria-label="copy transaction hash"]').count()).resolves.toBe(1);
    await expect(link(page, `${EXPLORER}/tx/${hash('d')}`).count()).resolves.toBe(0);
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`axe-core: no serious or critical violation on the event run and the reorgs view, ${theme} theme`, async () => {
      const found = [];
      for (const [route, view] of [['#/run/ui-ev-1', 'run'], ['#/run/ui-ev-priv', 'run'], ['#/reorgs', 'reorgs']] as const) {
        const page = await visit(route, view, theme);
        for (const v of await seriousViolations(page)) found.push({ route, ...v });
      }
      expect(found).toEqual([]);
    });
  }
});
