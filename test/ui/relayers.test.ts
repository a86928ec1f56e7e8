/**
 * The Relayers view in real Chromium, on the real server (real SQLite) with its relayers on a real anvil chain and
 * one network whose provider is down (issue 12): per relayer the network, the address with a copy button, the live
 * balance, the low-balance flag, the threshold, the recent gas spend, the funding estimate and the shortfall, and a
 * link to the runs of that relayer. Amounts are compared exactly with what GET /api/relayers answers, and that with
 * the chain. After each test: no request left 127.0.0.1 and no page error.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { TopUpRelayer } from '../../src/application/relayers/top-up-relayer.use-case';
import { ANVIL_ACCOUNTS, ANVIL_CHAIN_ID, refusingUrl, startAnvil, type Anvil } from '../support/anvil';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ETHER = 10n ** 18n;
const OPS = ANVIL_ACCOUNTS[1]!;
const KEEPER = ANVIL_ACCOUNTS[2]!;
const OFFLINE = ANVIL_ACCOUNTS[3]!;

/** Exact wei → ETH text as a reader expects it (digits grouped, the whole fraction), independently of the page: BigInt only. */
function eth(wei: string): string {
  const v = BigInt(wei);
  const whole = (v / ETHER).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = (v % ETHER).toString().padStart(18, '0').replace(/0+$/, '');
  return `${whole}${frac ? `.${frac}` : ''} ETH`;
}

describe('web UI: the Relayers view over a real chain', () => {
  let anvil: Anvil;
  let srv: TestServer;
  let browser: Browser;
  let topupRun: string;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    [anvil, browser] = await Promise.all([startAnvil(), launchBrowser()]);
    srv = await startTestServer({
      env: { RPC: anvil.url, DEAD_RPC: await refusingUrl(), OPS_KEY: OPS.privateKey, KEEPER_KEY: KEEPER.privateKey, OFFLINE_KEY: OFFLINE.privateKey },
      config: {
        networks: {
          anvil: { chain_id: ANVIL_CHAIN_ID, rpc: [{ env: 'RPC' }] },
          anvil_down: { chain_id: ANVIL_CHAIN_ID, rpc: [{ env: 'DEAD_RPC' }] },
        },
        relayers: {
          ops: { network: 'anvil', signer: { env: 'OPS_KEY' }, low_balance: '1 ether' },
          keeper: { network: 'anvil', signer: { env: 'KEEPER_KEY' }, low_balance: '20000 ether' },
          offline: { network: 'anvil_down', signer: { env: 'OFFLINE_KEY' } },
        },
      },
    });
    // A top-up gives ops a recent gas spend (and so a funding estimate) and a run to link to.
    const topup = await srv.root.container.get(TopUpRelayer).execute({ from: 'ops', to: 'keeper', amount: '0.25 ether', by: 'ui-test' });
    expect(topup.outcome).toBe('confirmed');
    topupRun = topup.run_id;
  });

  afterEach(() => checkAndCloseTabs(tabs));

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
    await anvil?.stop();
  });

  async function relayersView(options: Parameters<typeof openTab>[1] = {}): Promise<Page> {
    const tab = await openTab(browser, options);
    tabs.push(tab);
    await tab.page.goto(`${srv.baseUrl}/#/relayers`);
    await waitForView(tab.page, 'relayers');
    return tab.page;
  }
  const rowOf = (page: Page, relayer: string): Locator =>
    page.locator('main tbody tr').filter({ has: page.locator('td:first-child a', { hasText: new RegExp(`^${relayer}$`) }) });
  /** The cells of a row by column header. */
  async function cells(page: Page, relayer: string): Promise<Record<string, string>> {
    const headers = (await page.locator('main thead th').allInnerTexts()).map((h) => h.trim().toLowerCase());
    const values = await rowOf(page, relayer).locator('td').allInnerTexts();
    return Object.fromEntries(headers.map((h, i) => [h, (values[i] ?? '').trim()]));
  }

  test('shows every relayer: address with a copy button, live balance, low flag, threshold, recent gas spend, funding estimate, shortfall', async () => {
    const api = (await srv.get('/api/relayers')).body as Json;
    const rows = new Map<string, Json>(api.items.map((r: Json) => [r.relayer, r]));
    // What the API answers is the chain's own balance.
    expect(rows.get('ops').balance_wei).toBe((await anvil.balance(OPS.address)).toString());
    expect(rows.get('keeper').balance_wei).toBe((await anvil.balance(KEEPER.address)).toString());
    expect(BigInt(rows.get('ops').recent_gas_spend_wei)).toBeGreaterThan(0n);

    const page = await relayersView({ permissions: ['clipboard-read', 'clipboard-write'] });
    await expect(page.locator('main tbody tr').count()).resolves.toBe(3);
    for (const relayer of ['keeper', 'ops']) {
      const r = rows.get(relayer);
      const c = await cells(page, relayer);
      expect(c.network).toContain('anvil');
      expect(c.address).toContain(r.address);
      expect(c.balance).toBe(eth(r.balance_wei));
      expect(c.threshold).toBe(eth(r.low_balance_threshold_wei));
      expect(c['recent gas spend']).toBe(eth(r.recent_gas_spend_wei));
      expect(c['funding estimate']).toBe(eth(r.funding_estimate_wei));
      expect(c.shortfall).toBe(eth(r.shortfall_wei));
    }
    expect((await cells(page, 'keeper'))['low balance']).toBe('low');
    expect((await cells(page, 'ops'))['low balance']).not.toBe('low');
    expect(rows.get('keeper').shortfall_wei).not.toBe('0');

    // The address copies to the clipboard.
    await rowOf(page, 'ops').locator('button.copy').click();
    await expect(page.evaluate(() => (globalThis as Json).navigator.clipboard.readText())).resolves.toBe(OPS.address);
  });

  test('a relayer whose network does not answer: its balance is unavailable, with the reason and no URL; the row still shows the rest', async () => {
    const page = await relayersView();
    const row = rowOf(page, 'offline');
    const c = await cells(page, 'offline');
    expect(c.address).toContain(OFFLINE.address);
    expect(c.balance).toBe('unavailable');
    const reason = await row.locator('td .err').first().getAttribute('title');
    expect(reason).toBe('anvil_down: no provider answered (provider 1: connection refused)');
    expect(c['recent gas spend']).toBe('0 ETH');
    expect(c['funding estimate']).toBe('0 ETH');
    expect(await row.innerText()).not.toMatch(/127\.0\.0\.1|REFUSED-SECRET-KEY/);
  });

  test('a row links to the runs of its relayer', async () => {
    const page = await relayersView();
    await rowOf(page, 'ops').locator('td:first-child a').click();
    await waitForView(page, 'runs');
    expect(new URL(page.url()).hash).toBe('#/runs?relayer=ops');
    await expect(page.locator(`main tr[data-run="${topupRun}"]`).count()).resolves.toBe(1);
  });
});
