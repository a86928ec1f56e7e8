/**
 * GET /api/spend through the real HTTP server on a real SQLite file and on PostgreSQL, fed through the journal port
 * with landed and unlanded terminal settles (SPEC: Spend ledger entry, Spend summary group, Spend API, Limits,
 * Errors; CONTRACT sections 3 to 5). Expected amounts are computed by hand with BigInt from the journaled receipts.
 * The bearer's checks (before any store is read) on SQLite only.
 */
import { SettlePendingReceipts } from '../../../src/application/spend/settle-pending-receipts.use-case';
import { DAY, HOUR, iso, MINUTE } from '../../mothers/journal-events';
import { get, startTestServer, type TestResponse, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';
import {
  ENTRY_FIELDS, expectedEntry, expectedSummary, GROUP_FIELDS, landsWithGas, newestFirst, sendRun, settleAt, sortedSummary,
  SUMMARY_FIELDS, TOTAL_FIELDS, txHashOf, type EntryJson, type SendSpec, type SpendJson,
} from '../../support/spend-ledger';

/** Whole seconds, so that the server's "now" (a few seconds later) keeps every run well inside its window. */
const NOW = Math.floor(Date.now() / 1000) * 1000;
const TWO_128 = 1n << 128n;

const SEPOLIA = { network: 'sepolia', chainId: 11155111 };
const MAINNET = { network: 'mainnet', chainId: 1 };
const BASE = { network: 'base', chainId: 8453 };

const OLD: SendSpec = {
  runId: 'sp-old', workflow: 'payouts', relayer: 'ops', ...SEPOLIA, at: NOW - 10 * DAY, outcome: 'confirmed', valueWei: '1000',
  receipt: { gasUsed: '21000', effectiveGasPrice: '1000000000' },
};
/** An OP-stack receipt: the L1 data fee counts on top; numbers given as 0x-hex. */
const L1: SendSpec = {
  runId: 'sp-l1', workflow: 'keeper', relayer: 'bot', ...BASE, at: NOW - 3 * DAY, outcome: 'confirmed', valueWei: '5000000000000000000',
  receipt: { gasUsed: '0xc350', effectiveGasPrice: '0x3b9aca00', l1Fee: '123456789' },
};
/** A pre-EIP-1559 receipt: no effectiveGasPrice, the legacy gasPrice is what was paid. */
const LEGACY: SendSpec = {
  runId: 'sp-legacy', workflow: 'payouts', relayer: 'ops', ...MAINNET, at: NOW - 30 * HOUR, outcome: 'confirmed', valueWei: '7',
  receipt: { gasUsed: '21000', gasPrice: '20000000000' },
};
const REVERTED: SendSpec = {
  runId: 'sp-rev', workflow: 'keeper', relayer: 'ops', ...SEPOLIA, at: NOW - 5 * HOUR, outcome: 'reverted', valueWei: '999',
  receipt: { gasUsed: '45000', effectiveGasPrice: '3000000000' },
};
/** Two whale sends whose sums overflow 64 bits (and a float's 53-bit mantissa) many times over. */
const BIG1: SendSpec = {
  runId: 'sp-big1', workflow: 'whale', relayer: 'treasury', ...MAINNET, at: NOW - 3 * HOUR, outcome: 'confirmed', valueWei: TWO_128.toString(),
  receipt: { gasUsed: '30000000', effectiveGasPrice: '900000000000000000', l1Fee: '18446744073709551616' },
};
const BIG2: SendSpec = {
  runId: 'sp-big2', workflow: 'whale', relayer: 'treasury', ...MAINNET, at: NOW - 2 * HOUR, outcome: 'confirmed', valueWei: (TWO_128 - 1n).toString(),
  receipt: { gasUsed: '25000000', effectiveGasPrice: '800000000000000001' },
};
/**
 * Never landed: no entry, even when a receipt-like object rides along. (An expired send's receipt is its landed
 * cancel's: that one has an entry, value 0.)
 */
const UNLANDED: SendSpec[] = (['dropped', 'expired', 'replaced'] as const).map((outcome, i) => ({
  runId: `sp-${outcome}`, workflow: 'payouts', relayer: 'ops', ...SEPOLIA, at: NOW - 4 * HOUR + i * MINUTE, outcome, valueWei: '5',
  receipt: { gasUsed: '21000', effectiveGasPrice: '1000000000' },
}));
/** Landed, but its settle has no receipt and its network no read provider: a receipt read is owed and fails. */
const NO_GAS: SendSpec = {
  runId: 'sp-nogas', workflow: 'payouts', relayer: 'ops', network: 'nowhere', chainId: 999, at: NOW - HOUR, outcome: 'confirmed', valueWei: '3',
};
/** 55 small sends 20 days back, so that the default page (50) is smaller than the ledger. */
const BULK: SendSpec[] = Array.from({ length: 55 }, (_, i) => ({
  runId: `sp-bulk-${String(i).padStart(2, '0')}`, workflow: 'bulk', relayer: 'bulk-relayer', ...SEPOLIA, at: NOW - 20 * DAY + i * MINUTE,
  outcome: 'confirmed' as const, valueWei: '1', receipt: { gasUsed: '21000', effectiveGasPrice: String(1_000_000_000 + i) },
}));

const NAMED = [OLD, L1, LEGACY, REVERTED, BIG1, BIG2];
const ALL_SENDS = [...NAMED, ...UNLANDED, NO_GAS, ...BULK];
const LANDED = ALL_SENDS.filter(landsWithGas);
const ENTRIES = newestFirst(LANDED.map(expectedEntry));
const entriesWhere = (pick: (s: SendSpec) => boolean): EntryJson[] => newestFirst(LANDED.filter(pick).map(expectedEntry));
const at = (s: SendSpec): number => Date.parse(settleAt(s));

describe.each(E2E_STORAGES)('GET /api/spend (real server, real store), on %s', (_name, freshStorage) => {
  let srv: TestServer;
  const spend = async (query = ''): Promise<SpendJson & { res: TestResponse }> => {
    const res = await srv.get(`/api/spend${query}`);
    expect({ query, status: res.status, body: res.status === 200 ? '-' : res.body }).toEqual({ query, status: 200, body: '-' });
    return { ...(res.body as SpendJson), res };
  };
  const badRequest = async (query: string, names: RegExp): Promise<void> => {
    const res = await srv.get(`/api/spend${query}`);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.body as object)).toEqual(['error']);
    expect((res.body as { error: string }).error).toMatch(names);
  };

  beforeAll(async () => {
    srv = await startTestServer({ storage: await freshStorage() });
    // The server drains owed receipt reads once at start: let that finish before the fixture arrives.
    await srv.root.container.get(SettlePendingReceipts).drain();
    await srv.append(ALL_SENDS.flatMap(sendRun));
  });
  afterAll(() => srv.close());

  it('answers SPEC\'s shape: summary per workflow, relayer and network plus a total without key, exact decimal strings, entries newest first, no-store', async () => {
    const body = await spend('?limit=500');
    expect(body.res.headers.get('cache-control')).toBe('no-store');
    expect(body.res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(body.summary).sort()).toEqual(SUMMARY_FIELDS);
    expect(Object.keys(body.summary.total).sort()).toEqual(TOTAL_FIELDS);
    for (const dim of ['by_workflow', 'by_relayer', 'by_network'] as const) {
      for (const group of body.summary[dim]) {
        expect(Object.keys(group).sort()).toEqual(GROUP_FIELDS);
        for (const amount of [group.gas_spend_wei, group.value_wei, group.reverted_gas_wei]) expect(amount).toMatch(/^(0|[1-9][0-9]*)$/);
        expect(Number.isInteger(group.tx_count) && Number.isInteger(group.reverted_count)).toBe(true);
      }
    }
    for (const entry of body.entries) {
      expect(Object.keys(entry).sort()).toEqual(ENTRY_FIELDS);
      expect(typeof entry.chain_id).toBe('number');
      expect(typeof entry.reverted).toBe('boolean');
      for (const amount of [entry.gas_used, entry.effective_gas_price, entry.gas_spend_wei, entry.value_wei]) expect(amount).toMatch(/^(0|[1-9][0-9]*)$/);
    }
    expect(sortedSummary(body.summary)).toEqual(expectedSummary(ENTRIES));
    expect(body.entries).toEqual(ENTRIES);
    expect(body.summary.total.tx_count).toBe(62);
  });

  it('records what each receipt form paid: l1Fee on top, the legacy gasPrice as the price, a reverted send moves no value', async () => {
    const { entries } = await spend('?limit=500');
    const byTx = new Map(entries.map((e) => [e.tx_hash, e]));
    expect(byTx.get(txHashOf(L1))).toMatchObject({ gas_used: '50000', effective_gas_price: '1000000000', gas_spend_wei: '50000123456789', value_wei: '5000000000000000000', reverted: false, chain_id: 8453 });
    expect(byTx.get(txHashOf(LEGACY))).toMatchObject({ gas_used: '21000', effective_gas_price: '20000000000', gas_spend_wei: '420000000000000', value_wei: '7', reverted: false });
    expect(byTx.get(txHashOf(REVERTED))).toMatchObject({ gas_spend_wei: '135000000000000', value_wei: '0', reverted: true });
    expect(byTx.get(txHashOf(OLD))).toMatchObject({ recorded_at: settleAt(OLD), run_id: 'sp-old', step_run_id: 'sp-old.submit_tx', relayer: 'ops', network: 'sepolia', chain_id: 11155111 });
    // dropped, replaced: never landed, no entry; the settle without gas numbers: no entry either
    for (const s of [...UNLANDED.filter((u) => u.outcome !== 'expired'), NO_GAS]) expect(byTx.has(txHashOf(s))).toBe(false);
    // expired: its cancel landed, its gas is an entry with value 0
    expect(byTx.get(txHashOf(UNLANDED.find((u) => u.outcome === 'expired')!))).toMatchObject({ value_wei: '0', reverted: false, gas_spend_wei: '21000000000000' });
    expect(entries).toHaveLength(62);
  });

  it('sums amounts beyond 2^64 exactly (hand-computed)', async () => {
    const { summary } = await spend('?workflow=whale&limit=0');
    // 30e6 × 0.9e18 + 2^64  plus  25e6 × (0.8e18 + 1)
    expect(summary.total).toEqual({
      tx_count: 2, gas_spend_wei: '47000018446744073734551616', value_wei: '680564733841876926926749214863536422911',
      reverted_count: 0, reverted_gas_wei: '0',
    });
    expect(BigInt(summary.total.gas_spend_wei)).toBeGreaterThan(1n << 64n);
    expect(summary.by_relayer).toEqual([{ key: 'treasury', ...summary.total }]);
    const all = await spend('?limit=0');
    const mainnet = all.summary.by_network.find((g) => g.key === 'mainnet')!;
    expect(mainnet.gas_spend_wei).toBe((47000018446744073734551616n + 420000000000000n).toString());
    expect(mainnet.value_wei).toBe((680564733841876926926749214863536422911n + 7n).toString());
  });

  it.each<[string, string, (s: SendSpec) => boolean]>([
    ['workflow', '?workflow=payouts', (s) => s.workflow === 'payouts'],
    ['relayer', '?relayer=ops', (s) => s.relayer === 'ops'],
    ['network', '?network=mainnet', (s) => s.network === 'mainnet'],
    ['since as a duration', '?since=2d', (s) => at(s) >= NOW - 2 * DAY],
    ['since as a duration (hours)', '?since=24h', (s) => at(s) >= NOW - DAY],
    ['since as RFC 3339', `?since=${iso(NOW - 4 * HOUR)}`, (s) => at(s) >= NOW - 4 * HOUR],
    ['until as RFC 3339', `?until=${iso(NOW - DAY)}`, (s) => at(s) <= NOW - DAY],
    ['since and until', `?since=${iso(NOW - 4 * DAY)}&until=${iso(NOW - 4 * HOUR)}`, (s) => at(s) >= NOW - 4 * DAY && at(s) <= NOW - 4 * HOUR],
    ['every dimension at once', '?workflow=keeper&relayer=ops&network=sepolia', (s) => s.workflow === 'keeper' && s.relayer === 'ops' && s.network === 'sepolia'],
    ['a name nobody uses', '?relayer=nobody', () => false],
  ])('filters by %s: the summary and the entries cover exactly the filtered ledger', async (_name, query, pick) => {
    const expected = entriesWhere(pick);
    const body = await spend(`${query}&limit=500`);
    expect(body.entries).toEqual(expected);
    expect(sortedSummary(body.summary)).toEqual(expectedSummary(expected));
  });

  it('since and until are inclusive bounds on recorded_at, for the entries and the summary alike', async () => {
    const edge = settleAt(LEGACY);
    const runsAndCount = async (query: string): Promise<[string[], number]> => {
      const body = await spend(`${query}&network=mainnet`);
      return [body.entries.map((e) => e.run_id), body.summary.total.tx_count];
    };
    // the summary (rollups plus partial hours) and the entries agree at the edges
    expect(await runsAndCount(`?until=${edge}`)).toEqual([['sp-legacy'], 1]);
    expect(await runsAndCount(`?until=${iso(Date.parse(edge) - 1)}`)).toEqual([[], 0]);
    expect(await runsAndCount(`?since=${edge}`)).toEqual([['sp-big2', 'sp-big1', 'sp-legacy'], 3]);
    expect(await runsAndCount(`?since=${iso(Date.parse(edge) + 1)}`)).toEqual([['sp-big2', 'sp-big1'], 2]);
  });

  it('limit pages entries only: default 50, 0 gives the full summary alone, 500 is allowed', async () => {
    const full = expectedSummary(ENTRIES);
    const byDefault = await spend('');
    expect(byDefault.entries).toEqual(ENTRIES.slice(0, 50));
    expect(sortedSummary(byDefault.summary)).toEqual(full);
    const none = await spend('?limit=0');
    expect(none.entries).toEqual([]);
    expect(sortedSummary(none.summary)).toEqual(full);
    const one = await spend('?limit=1');
    expect(one.entries).toEqual([ENTRIES[0]]);
    expect(one.entries[0]!.run_id).toBe('sp-big2');
    expect((await spend('?limit=500')).entries).toHaveLength(62);
    const filtered = await spend('?workflow=bulk&limit=3');
    expect(filtered.entries.map((e) => e.run_id)).toEqual(['sp-bulk-54', 'sp-bulk-53', 'sp-bulk-52']);
    expect(filtered.summary.total.tx_count).toBe(55);
  });

  it('rejects a bad limit with 400 naming limit, never a 500', async () => {
    for (const bad of ['501', '-1', 'abc', '', '1.5', '1e2', '99999999999']) await badRequest(`?limit=${bad}`, /limit/);
    await badRequest('?limit=1&limit=2', /limit/);
  });

  it('rejects unknown parameters and bad filter values with 400 naming the parameter', async () => {
    await badRequest('?wrkflow=payouts', /wrkflow/);
    await badRequest('?cursor=abc', /cursor/);
    await badRequest('?since=3%20days', /since/);
    await badRequest('?since=0s', /since/);
    await badRequest('?since=999999999w', /since/);
    await badRequest('?since=2026-02-30T00:00:00Z', /since/);
    await badRequest('?until=yesterday', /until/);
    await badRequest('?workflow=', /workflow/);
    await badRequest('?workflow=a&workflow=b', /workflow/);
    await badRequest(`?network=${'n'.repeat(300)}`, /network/);
    await badRequest('?relayer[x]=ops', /relayer/);
  });

  it('a repeated terminal settle (crash and rerun) writes no second entry', async () => {
    await srv.append(sendRun(BIG2));
    const settle = sendRun(BIG1).find((e) => e.type === 'send.settled')!;
    // The rerun journals the settle again, a little later: the (step_run_id, tx_hash) entry already exists.
    await srv.append([{ ...settle, at: iso(Date.parse(settle.at) + MINUTE) }]);
    const { summary, entries } = await spend('?workflow=whale');
    expect(entries).toEqual([expectedEntry(BIG2), expectedEntry(BIG1)]);
    expect(summary.total).toMatchObject({ tx_count: 2, gas_spend_wei: '47000018446744073734551616' });
  });

  it('/metrics counts the landed send whose receipt read failed as a ledger gap (chainflow_spend_ledger_gaps)', async () => {
    const gauge = async (name: string): Promise<number> => {
      const res = await srv.get('/metrics');
      expect(res.status).toBe(200);
      const line = res.text.split('\n').find((l) => l.startsWith(`${name} `));
      expect(line).toBeDefined();
      return Number(line!.split(' ')[1]);
    };
    expect({ pending: await gauge('chainflow_spend_receipts_pending'), gaps: await gauge('chainflow_spend_ledger_gaps') }).toEqual({ pending: 1, gaps: 0 });
    // Network 'nowhere' has no read provider: the read fails, a warning is logged, and no entry is written.
    expect(await srv.root.container.get(SettlePendingReceipts).drain()).toEqual({ recorded: 0, gaps: 1 });
    expect({ pending: await gauge('chainflow_spend_receipts_pending'), gaps: await gauge('chainflow_spend_ledger_gaps') }).toEqual({ pending: 0, gaps: 1 });
    const { entries, summary } = await spend('?network=nowhere');
    expect({ entries, tx_count: summary.total.tx_count }).toEqual({ entries: [], tx_count: 0 });
    // The send itself stays settled in the history.
    const txs = await srv.get('/api/history/txs?run_id=sp-nogas');
    expect(txs.body.items.map((s: { status: string; outcome: string }) => [s.status, s.outcome])).toEqual([['settled', 'confirmed']]);
  });
});

describe('GET /api/spend with authentication on', () => {
  const TOKEN = 'spend-api-token-7c1e2a';
  let srv: TestServer;
  const spendWith = (headers: Record<string, string>): Promise<TestResponse> => get(`${srv.baseUrl}/api/spend`, { headers });

  beforeAll(async () => {
    srv = await startTestServer({
      config: { secrets: { api_token: { env: 'T' } }, server: { auth: { token: { secret: 'api_token' } } } },
      env: { T: TOKEN },
    });
    await srv.append(sendRun(OLD));
  });
  afterAll(() => srv.close());

  it('is 401 without a token or with a wrong one', async () => {
    for (const headers of [{}, { Authorization: 'Bearer wrong-token-123' }, { 'X-Service-Token': 'wrong-token-123' }, { Authorization: TOKEN }] as Record<string, string>[]) {
      const res = await spendWith(headers);
      expect({ headers, status: res.status, body: res.body }).toEqual({ headers, status: 401, body: { error: 'unauthorized' } });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.text).not.toContain(txHashOf(OLD));
    }
  });

  it('is 200 with the token as a Bearer or in X-Service-Token', async () => {
    for (const headers of [{ Authorization: `Bearer ${TOKEN}` }, { 'X-Service-Token': TOKEN }] as Record<string, string>[]) {
      const res = await spendWith(headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 200 });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect((res.body as SpendJson).entries).toEqual([expectedEntry(OLD)]);
    }
  });

  it('/metrics (with its spend gauges) requires the token too', async () => {
    expect((await get(`${srv.baseUrl}/metrics`)).status).toBe(401);
    const res = await get(`${srv.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^chainflow_spend_ledger_gaps 0$/m);
  });
});
