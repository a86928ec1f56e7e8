import type { Knex } from 'knex';
import { openDatabase } from '../../../src/adapters/storage';
import { edgeStatements, KnexSpendLedger } from '../../../src/adapters/knex/knex-spend-ledger';
import { plusPlaceholders } from '../../../src/adapters/knex/sql-text';
import { anEntry } from '../../contract/spend.contract';
import { makeTempDir, removeTempDir } from '../../support/server';
import { freshPostgresStore, type FreshStore } from '../../support/stores';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-06-10T15:20:00.000Z');
const DAY_AGO = NOW - 24 * HOUR;
/** A window's two edges: the partial hours at either end, as a budget check over the last day reads them. */
const EDGES = [{ from: DAY_AGO, to: DAY_AGO + 40 * 60_000 }, { from: NOW - 20 * 60_000, to: NOW + 1 }];
const NAMES = { sql: ['workflow IN (?, ?)', 'relayer IN (?, ?, ?)'], bindings: ['payouts', 'keeper', 'ops', 'treasury', 'hot'] };

/**
 * The entries at a window's edges are read from an index, range by range, whichever of the two sums they take (64-bit
 * or nine-digit slices): a read of every entry of the named workflows made the budget check cost 19 ms instead of
 * 0.25 at 1M entries whenever an amount beyond 18 digits (1 ether) fell in an edge.
 */
describe('KnexSpendLedger: the edges of a window', () => {
  let dir: string;
  let db: Knex;

  beforeAll(async () => {
    dir = makeTempDir();
    db = await openDatabase(`sqlite:${dir}/edges.db`);
  });
  afterAll(async () => {
    await db.destroy();
    removeTempDir(dir);
  });

  it.each(['plain', 'sliced'] as const)('the %s sums search each edge in an index by its time range', async (kind) => {
    const { sql, bindings } = edgeStatements(EDGES, NAMES, { sql: 'SELECT 1', bindings: [] })[kind];
    // As the adapter runs them: `+?` placeholders (see plusPlaceholders).
    const plan = (await db.raw(`EXPLAIN QUERY PLAN ${plusPlaceholders(sql)}`, bindings)) as { detail: string }[];
    const reads = plan.map((p) => p.detail).filter((d) => /\bspend_entries\b/.test(d));
    expect(reads.length).toBeGreaterThanOrEqual(EDGES.length);
    for (const read of reads) expect(read).toMatch(/^SEARCH spend_entries USING (COVERING )?INDEX \w+ \(.*recorded_at>\? AND recorded_at<\?\)$/);
  });

  it('sums amounts beyond 18 digits at both edges exactly, the data version and `along` read with them', async () => {
    const ledger = new KnexSpendLedger(db);
    const big = 10n ** 30n + 7n;
    await ledger.append([
      anEntry({ stepRunId: 'early.send', recordedAt: DAY_AGO + 10 * 60_000, valueWei: big, gasSpendWei: 3n }),
      anEntry({ stepRunId: 'late.send', recordedAt: NOW - 5 * 60_000, valueWei: big + 1n, gasSpendWei: 4n }),
      anEntry({ stepRunId: 'outside.send', recordedAt: DAY_AGO - 60_000, valueWei: 5n, gasSpendWei: 5n }),
    ]);
    const select = async (sql: string, bindings: readonly Knex.RawBinding[]): Promise<Record<string, unknown>[]> => db.raw(sql, [...bindings]);
    const read = await ledger.totalsWith(select, { since: DAY_AGO, until: NOW }, { sql: 'SELECT ?', bindings: ['riding along'] });
    expect(read.totals.reduce((s, c) => s + c.valueWei, 0n)).toBe(2n * big + 1n);
    expect(read.totals.reduce((s, c) => s + c.gasSpendWei, 0n)).toBe(7n);
    expect(read.along).toBe('riding along');
    const [{ data_version: version }] = (await db.raw('SELECT data_version FROM pragma_data_version')) as { data_version: number }[];
    expect(read.version).toBe(version);
  });
});

/** On PostgreSQL the amounts are NUMERIC(78,0) (migration 0023): the edges' sums are taken by SQL, exactly. */
describe('KnexSpendLedger: the edges of a window on PostgreSQL', () => {
  let store: FreshStore;

  beforeAll(async () => {
    store = await freshPostgresStore();
  });
  afterAll(async () => {
    await store.close();
  });

  it('sums amounts up to 2^256 - 1 at both edges exactly in SQL, one row per combination', async () => {
    const db = await store.open();
    const ledger = new KnexSpendLedger(db);
    const max = 2n ** 256n - 1n;
    await ledger.append([
      anEntry({ stepRunId: 'early.send', recordedAt: DAY_AGO + 10 * 60_000, valueWei: max, gasSpendWei: max - 1n, reverted: true }),
      anEntry({ stepRunId: 'late.send', recordedAt: NOW - 5 * 60_000, valueWei: max, gasSpendWei: 4n }),
      anEntry({ stepRunId: 'other.send', recordedAt: NOW - 5 * 60_000, relayer: 'treasury', valueWei: 10n ** 40n, gasSpendWei: 6n }),
      anEntry({ stepRunId: 'outside.send', recordedAt: DAY_AGO - 60_000, valueWei: 5n, gasSpendWei: 5n }),
    ]);
    const answered: number[] = [];
    const select = async (sql: string, bindings: readonly Knex.RawBinding[]): Promise<Record<string, unknown>[]> => {
      const { rows } = (await db.raw(sql, [...bindings])) as { rows: Record<string, unknown>[] };
      answered.push(rows.length);
      return rows;
    };
    const read = await ledger.totalsWith(select, { since: DAY_AGO + 5 * 60_000, until: NOW });
    const byRelayer = Object.fromEntries(read.totals.map((c) => [c.relayer, c]));
    expect(byRelayer.ops).toMatchObject({ txCount: 2, revertedCount: 1, valueWei: 2n * max, gasSpendWei: max + 3n, revertedGasWei: max - 1n });
    expect(byRelayer.treasury).toMatchObject({ txCount: 1, revertedCount: 0, valueWei: 10n ** 40n, gasSpendWei: 6n, revertedGasWei: 0n });
    expect(Object.keys(byRelayer)).toHaveLength(2);
    // The edges are read first (then the whole hours between, which hold none of these): one row per combination,
    // not one per entry.
    expect(answered).toEqual([2, 0]);
  });
});
