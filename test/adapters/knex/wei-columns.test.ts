/**
 * CONTRACT 10: wei is NUMERIC(78,0) on PostgreSQL (migration 0023), exact decimal TEXT on SQLite, and every wei or
 * token-amount column gives back the decimal string it was given, text for text, at the edges of uint256.
 */
import type { Knex } from 'knex';
import { KnexSpendLedger } from '../../../src/adapters/knex/knex-spend-ledger';
import { WEI_COLUMNS } from '../../../src/adapters/knex/migration-wei';
import { MAX_UINT256 } from '../../../src/domain/spend/ledger-entry';
import { anEntry } from '../../contract/spend.contract';
import { freshPostgresStore, KNEX_STORES, type FreshStore } from '../../support/stores';

const EDGES = [0n, 10n ** 77n, MAX_UINT256];

interface Column {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
}

/** The table's columns: their declared type, and whether an insert must give them (NOT NULL, no default). */
async function columnsOf(db: Knex, kind: string, table: string): Promise<Column[]> {
  if (kind === 'postgres') {
    const rows = (await db.raw(
      `SELECT column_name, data_type, numeric_precision, numeric_scale, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'`, [table],
    )).rows as Array<Record<string, string | number | null>>;
    return rows.map((r) => ({
      name: String(r.column_name),
      type: r.data_type === 'numeric' ? `numeric(${r.numeric_precision},${r.numeric_scale})` : String(r.data_type),
      required: r.is_nullable === 'NO' && r.column_default === null,
    }));
  }
  // table_xinfo: hidden 2 and 3 are generated columns (the stored items), which no insert gives.
  const rows = (await db.raw(`SELECT name, type, "notnull", dflt_value, hidden FROM pragma_table_xinfo(?)`, [table])) as Array<Record<string, string | number | null>>;
  return rows.filter((r) => Number(r.hidden) === 0)
    .map((r) => ({ name: String(r.name), type: String(r.type).toLowerCase(), required: Number(r.notnull) === 1 && r.dflt_value === null }));
}

/** A row holding `amount` in every wei column and, in every other column it needs, a short value of its type (some are VARCHAR(8)). */
function rowWith(columns: readonly Column[], wei: readonly string[], amount: bigint, i: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of columns) {
    if (wei.includes(c.name)) row[c.name] = amount.toString();
    else if (!c.required) continue;
    else if (/int|numeric/.test(c.type)) row[c.name] = i;
    else if (/bool/.test(c.type)) row[c.name] = false;
    else row[c.name] = `v${i}`;
  }
  return row;
}

describe.each(KNEX_STORES)('wei columns on %s', (_name, freshStore) => {
  let store: FreshStore;
  let db: Knex;
  let kind: string;

  beforeEach(async () => {
    store = await freshStore();
    db = await store.open();
    kind = _name === 'PostgreSQL' ? 'postgres' : 'sqlite';
  });
  afterEach(async () => {
    await store.close();
  });

  it('stores every wei and token-amount column as NUMERIC(78,0) on PostgreSQL and as TEXT on SQLite', async () => {
    for (const [table, wei] of Object.entries(WEI_COLUMNS)) {
      const columns = await columnsOf(db, kind, table);
      for (const name of wei) {
        expect([table, name, columns.find((c) => c.name === name)?.type]).toEqual([table, name, kind === 'postgres' ? 'numeric(78,0)' : 'text']);
      }
    }
  });

  it('gives back 0, 10^77 and 2^256 - 1 text for text from every wei column: no fraction, no exponent, no padding', async () => {
    for (const [table, wei] of Object.entries(WEI_COLUMNS)) {
      const columns = await columnsOf(db, kind, table);
      await db(table).insert(EDGES.map((amount, i) => rowWith(columns, wei, amount, i + 1)));
      for (const name of wei) {
        const read = ((await db(table).select(name)) as Array<Record<string, unknown>>).map((r) => r[name]);
        expect([table, name, [...read].sort()]).toEqual([table, name, EDGES.map(String).sort()]);
      }
    }
  });

  it('keeps a ledger entry at each edge exactly through the spend ledger', async () => {
    const ledger = new KnexSpendLedger(db);
    const entries = EDGES.map((amount, i) => anEntry({ stepRunId: `r${i}.pay`, recordedAt: 1_000 + i, gasSpendWei: amount, effectiveGasPrice: amount, valueWei: amount }));
    expect(await ledger.append(entries)).toEqual({ written: 3, duplicates: 0 });
    expect(await ledger.latest({}, 10)).toEqual([...entries].reverse());
  });
});

describe('wei on PostgreSQL', () => {
  let store: FreshStore;
  let db: Knex;

  beforeEach(async () => {
    store = await freshPostgresStore();
    db = await store.open();
  });
  afterEach(async () => {
    await store.close();
  });

  it('sums wei exactly in SQL past 2^256 (NUMERIC)', async () => {
    const columns = await columnsOf(db, 'postgres', 'relayer_topups');
    await db('relayer_topups').insert([1, 2, 3].map((i) => rowWith(columns, ['amount_wei'], MAX_UINT256, i)));
    const [row] = (await db.raw('SELECT SUM(amount_wei)::text AS total FROM relayer_topups')).rows as Array<{ total: string }>;
    expect(row!.total).toBe((3n * MAX_UINT256).toString());
  });
});
