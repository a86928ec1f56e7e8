import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { LedgerAppendResult, PendingReceipts, SpendFilter, SpendLedger } from '../../application/ports/spend-ledger';
import type { LedgerEntry, PendingReceipt } from '../../domain/spend/ledger-entry';
import { addTotals, zeroTotals, type ComboTotals } from '../../domain/spend/spend-totals';
import { databaseNow, dialectOf, leaseSql } from './dialect';
import { Database } from './knex-journal.writer';
import { coverRange, type Range } from './spend-cover';
import { AMOUNT_COLUMNS, fromLimbs } from './spend-limbs';
import { appendEntries, bodyToPending, COUNTING, ledgerWrites, ROLLUP_SUMS, rowToEntry } from './spend-store';

type Row = Record<string, unknown>;
/** Runs one read statement (`?` placeholders) and gives its rows. */
export type LedgerSelect = (sql: string, bindings: readonly Knex.RawBinding[]) => Promise<Row[]>;
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows);

/** SQL conditions and bindings of a filter's name lists. */
function nameConditions(filter: SpendFilter): { sql: string[]; bindings: Knex.RawBinding[] } {
  const sql: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  const lists: [string, readonly string[] | undefined][] = [['workflow', filter.workflows], ['relayer', filter.relayers], ['network', filter.networks]];
  for (const [column, names] of lists) {
    if (!names) continue;
    if (!names.length) {
      sql.push('1 = 0');
      continue;
    }
    sql.push(names.length === 1 ? `${column} = ?` : `${column} IN (${names.map(() => '?').join(',')})`);
    bindings.push(...names);
  }
  return { sql, bindings };
}

function rangeConditions(column: string, range: Range): { sql: string[]; bindings: Knex.RawBinding[] } {
  const sql: string[] = [];
  const bindings: Knex.RawBinding[] = [];
  if (range.from !== undefined) {
    sql.push(`${column} >= ?`);
    bindings.push(range.from);
  }
  if (range.to !== undefined) {
    sql.push(`${column} < ?`);
    bindings.push(range.to);
  }
  return { sql, bindings };
}

const where = (parts: string[]): string => (parts.length ? ` WHERE ${parts.join(' AND ')}` : '');
const sumText = (column: string): string => `CAST(SUM(${column}) AS TEXT) AS ${column}`;
const MAX_CACHED_PARTS = 256;
/** Nine-digit slices of a decimal amount: 81 digits cover a uint256 (78). */
const DIGIT_SLICES = Array.from({ length: 9 }, (_, i) => i);
const BILLION = 1_000_000_000n;

function fromDigitSlices(sums: readonly (string | null)[]): bigint {
  let total = 0n;
  for (let i = sums.length - 1; i >= 0; i--) total = total * BILLION + BigInt(sums[i] ?? 0);
  return total;
}

/** A scalar read that rides in the ledger's first statement (see KnexSpendLedger.totalsWith). */
export interface Along {
  readonly sql: string;
  readonly bindings: readonly Knex.RawBinding[];
}

type Statement = { readonly sql: string; readonly bindings: Knex.RawBinding[] };
const sliceSums = (column: string, alias: string, when?: string): string[] => DIGIT_SLICES.map((i) => {
  const slice = `CAST(substr(${column}, -${9 * (i + 1)}, 9) AS INTEGER)`;
  return `CAST(SUM(${when ? `CASE WHEN ${when} THEN ${slice} ELSE 0 END` : slice}) AS TEXT) AS ${alias}${i}`;
});
const PLAIN_SUMS = [
  'count(*) AS tx_count', 'SUM(CASE WHEN reverted THEN 1 ELSE 0 END) AS reverted_count',
  'max(length(gas_spend_wei)) AS gas_digits', 'max(length(value_wei)) AS value_digits',
  'CAST(SUM(CAST(gas_spend_wei AS INTEGER)) AS TEXT) AS g', 'CAST(SUM(CAST(value_wei AS INTEGER)) AS TEXT) AS v',
  'CAST(SUM(CASE WHEN reverted THEN CAST(gas_spend_wei AS INTEGER) ELSE 0 END) AS TEXT) AS r',
];
const SLICED_SUMS = [
  'count(*) AS tx_count', 'SUM(CASE WHEN reverted THEN 1 ELSE 0 END) AS reverted_count',
  ...sliceSums('gas_spend_wei', 'g'), ...sliceSums('value_wei', 'v'), ...sliceSums('gas_spend_wei', 'r', 'reverted'),
];

/** Sums of NUMERIC amounts per combination (PostgreSQL: exact in SQL), as decimal text. */
const NUMERIC_SUMS = [
  'count(*) AS tx_count', 'SUM(CASE WHEN reverted THEN 1 ELSE 0 END) AS reverted_count',
  'SUM(gas_spend_wei)::text AS g', 'SUM(value_wei)::text AS v', 'SUM(CASE WHEN reverted THEN gas_spend_wei ELSE 0 END)::text AS r',
];

/**
 * The statements that read the entries at the edges of a range: `numeric` sums per combination (NUMERIC amounts,
 * PostgreSQL), `plain` and `sliced` sums per combination (decimal TEXT amounts, SQLite), the latter two with one row more carrying the data version the statement
 * read and `along`. Several ranges are one OR in `plain`, where SQLite searches each range in an index; `sliced` reads
 * them as a UNION ALL of one search per range: with its longer select list SQLite chose to read every entry of the
 * named workflows for the OR (19 ms instead of 0.25 at 1M entries). Exported for the plan tests.
 */
export function edgeStatements(
  ranges: readonly Range[], names: { sql: string[]; bindings: Knex.RawBinding[] }, along?: Along,
): { numeric: Statement; plain: Statement; sliced: Statement } {
  const bindings: Knex.RawBinding[] = [];
  const conditions = ranges.map((range) => {
    const time = rangeConditions('recorded_at', range);
    bindings.push(...time.bindings);
    return `(${time.sql.join(' AND ') || '1 = 1'})`;
  });
  // Reorged entries count in no sum (CONTRACT 8.6); the rollups never held them or had them taken out.
  const filter = where([`(${conditions.join(' OR ')})`, ...names.sql, COUNTING]);
  const orBindings = [...bindings, ...names.bindings];
  const arms = ranges.map((range) => {
    const time = rangeConditions('recorded_at', range);
    return { sql: `SELECT workflow, relayer, network, reverted, gas_spend_wei, value_wei FROM spend_entries${where([...time.sql, ...names.sql, COUNTING])}`, bindings: [...time.bindings, ...names.bindings] };
  });
  const union = arms.length > 1 ? { from: `(${arms.map((a) => a.sql).join(' UNION ALL ')})`, bindings: arms.flatMap((a) => a.bindings) } : { from: `spend_entries${filter}`, bindings: orBindings };
  // One row more, marked by its data version: this connection's, read in the same statement (and `along`).
  const marker = (sums: readonly string[]): string => ` UNION ALL SELECT NULL, NULL, NULL, ${sums.map(() => 'NULL').join(', ')}, data_version`
    + `${along ? `, (${along.sql})` : ''} FROM pragma_data_version`;
  const grouped = (sums: readonly string[], from: string): string => `SELECT workflow, relayer, network, ${sums.join(', ')}, NULL AS data_version`
    + `${along ? ', NULL AS along' : ''} FROM ${from} GROUP BY workflow, relayer, network${marker(sums)}`;
  const alongBindings = along ? along.bindings : [];
  return {
    numeric: { sql: `SELECT workflow, relayer, network, ${NUMERIC_SUMS.join(', ')} FROM spend_entries${filter} GROUP BY workflow, relayer, network`, bindings: orBindings },
    plain: { sql: grouped(PLAIN_SUMS, `spend_entries${filter}`), bindings: [...orBindings, ...alongBindings] },
    sliced: { sql: grouped(SLICED_SUMS, union.from), bindings: [...union.bindings, ...alongBindings] },
  };
}

/** The rows of a statement of edgeStatements, without its marker row, and what the marker carried. */
function withMarker(all: Row[]): { rows: Row[]; version?: number; along?: unknown } {
  const marker = all.find((r) => r.data_version !== null && r.data_version !== undefined);
  return { rows: marker ? all.filter((r) => r !== marker) : all, version: marker ? Number(marker.data_version) : undefined, along: marker?.along };
}

/**
 * The spend ledger on knex. Summaries read the rollups (whole days, then whole hours at the edges) and only
 * the entries of the partial hours at either end of a time range, so their cost does not grow with the
 * ledger; every sum is exact.
 */
@injectable()
export class KnexSpendLedger implements SpendLedger, PendingReceipts {
  /** Cached rollup parts (SQLite only), oldest first. */
  private readonly parts = new Map<string, { seq: number; totals: ComboTotals[] }>();
  private dataVersion: number | undefined;
  private readonly cacheable: boolean;
  /** The database's "now" for receipt claims (see LeaseClock), or undefined: the caller's times. */
  private readonly dbNow: string | undefined;
  /** PostgreSQL: concurrent drains skip the reads another one is claiming instead of waiting for it. */
  private readonly skipLocked: string;

  constructor(@inject(Database) private readonly db: Knex) {
    this.cacheable = dialectOf(db).oneWriter;
    this.dbNow = databaseNow(db);
    this.skipLocked = dialectOf(db).skipLocked;
  }

  async append(entries: readonly LedgerEntry[]): Promise<LedgerAppendResult> {
    if (!entries.length) return { written: 0, duplicates: 0 };
    // On SQLite a write session: BEGIN, the duplicate check and one script of the inserts and the COMMIT (three
    // trips through the driver instead of five knex queries); the inserts' JSON documents are bound, not inlined.
    const sessions = dialectOf(this.db).writeSessions;
    if (sessions) return sessions.transact(this.db, (session) => appendEntries(session, entries));
    return this.db.transaction((trx) => appendEntries(trx, entries));
  }

  async totals(filter: SpendFilter): Promise<ComboTotals[]> {
    return (await this.totalsWith(this.onPool, filter)).totals;
  }

  /** Each read of the ledger, on knex's pool (SQLite: straight on its connection, see selectOnPool). */
  private readonly onPool: LedgerSelect = (sql, bindings) =>
    (this.cacheable ? dialectOf(this.db).select(this.db, sql, bindings) : this.db.raw(sql, bindings).then(rowsOf));

  /**
   * The totals as `totals` gives them, each read run by `select`: inside a transaction of the caller's, or on the
   * writer connection of an optimistic write (the budget reservations, see KnexBudgetReservations).
   *
   * `along` (SQLite only, else ignored): a scalar read (`SELECT` of one value, `?` placeholders) answered by the
   * first of these reads, in the same statement and so the same snapshot, with the data version that statement
   * read: the budget reservations' own read costs no trip of its own. Absent from the answer when not SQLite.
   */
  async totalsWith(select: LedgerSelect, filter: SpendFilter, along?: Along): Promise<{ totals: ComboTotals[]; version?: number; along?: unknown }> {
    const combos = new Map<string, ComboTotals>();
    const comboOf = (r: { workflow: string; relayer: string; network: string }): ComboTotals => {
      const key = `${r.workflow}\n${r.relayer}\n${r.network}`;
      let c = combos.get(key);
      if (!c) {
        c = { workflow: String(r.workflow), relayer: String(r.relayer), network: String(r.network), ...zeroTotals() };
        combos.set(key, c);
      }
      return c;
    };
    const names = nameConditions(filter);
    const cover = coverRange(filter.since, filter.until === undefined ? undefined : filter.until + 1);
    const ride = this.cacheable ? along : undefined;
    // The edges are read first: on SQLite that statement also answers the data version (one trip through the
    // driver's thread pool instead of two; each trip is a chance to wait for a core, which was most of the budget
    // check's p99). The cached rollup parts are checked against it before any is used.
    const first = cover.raw.length ? await this.edgeTotals(select, cover.raw, names, ride) : await this.versionAlone(select, ride);
    this.checkDataVersion(first?.version);
    for (const { grain, range } of cover.buckets) {
      for (const r of await this.rollupPart(select, grain, range, names)) addTotals(comboOf(r), r);
    }
    for (const r of first?.totals ?? []) addTotals(comboOf(r), r);
    return { totals: [...combos.values()].filter((c) => c.txCount > 0), version: first?.version, ...(ride ? { along: first?.along } : {}) };
  }

  /**
   * The sums of one rollup range per combination. Whole buckets of the past only change when an entry is
   * recorded back in time (live sends are recorded now, in the open bucket), so a part is kept until a
   * write of this process falls inside its range, or another process writes the database.
   */
  private async rollupPart(select: LedgerSelect, grain: string, range: Range, names: { sql: string[]; bindings: Knex.RawBinding[] }): Promise<ComboTotals[]> {
    const time = rangeConditions('bucket', range);
    const bindings = [grain, ...time.bindings, ...names.bindings];
    const sql = `SELECT workflow, relayer, network, ${ROLLUP_SUMS.map(sumText).join(', ')} FROM spend_rollups`
      + `${where(['grain = ?', ...time.sql, ...names.sql])} GROUP BY workflow, relayer, network`;
    const key = `${sql}\n${JSON.stringify(bindings)}`;
    const cached = this.parts.get(key);
    if (cached && this.stillValid(cached.seq, range.to)) return cached.totals;
    const seq = ledgerWrites.seq;
    const rows = await select(sql, bindings);
    const totals = rows.map((r) => ({
      workflow: String(r.workflow), relayer: String(r.relayer), network: String(r.network),
      txCount: Number(r.tx_count), revertedCount: Number(r.reverted_count),
      gasSpendWei: fromLimbs(AMOUNT_COLUMNS.gas.map((k) => r[k] as string)),
      valueWei: fromLimbs(AMOUNT_COLUMNS.value.map((k) => r[k] as string)),
      revertedGasWei: fromLimbs(AMOUNT_COLUMNS.reverted.map((k) => r[k] as string)),
    }));
    if (this.cacheable) {
      if (this.parts.size >= MAX_CACHED_PARTS) this.parts.delete(this.parts.keys().next().value!);
      this.parts.set(key, { seq, totals });
    }
    return totals;
  }

  /** Whether no write since `seq` recorded an entry before `to` (the end of a cached range). */
  private stillValid(seq: number, to: number | undefined): boolean {
    const log = ledgerWrites.log;
    if (ledgerWrites.seq === seq) return true;
    if (!log.length || log[0]!.seq > seq + 1) return false;
    for (let i = log.length - 1; i >= 0 && log[i]!.seq > seq; i--) {
      if (to === undefined || log[i]!.minAt < to) return false;
    }
    return true;
  }

  /**
   * Another process's commit (SQLite's data_version moves): every cached part may be stale. `version`: the version
   * a statement of this connection just read along with its rows.
   */
  private checkDataVersion(version: number | undefined): void {
    if (!this.cacheable) return;
    if (version !== this.dataVersion) {
      this.parts.clear();
      this.dataVersion = version;
    }
  }

  /** No edges to read (SQLite): the data version, and `along`, in a statement of their own. */
  private async versionAlone(select: LedgerSelect, along: Along | undefined): Promise<{ totals: ComboTotals[]; version?: number; along?: unknown } | undefined> {
    if (!this.cacheable) return undefined;
    const [row] = await select(`SELECT data_version${along ? `, (${along.sql}) AS along` : ''} FROM pragma_data_version`, along ? along.bindings : []);
    return { totals: [], version: Number(row?.data_version), along: row?.along };
  }

  /**
   * Totals per combination of the entries at the edges of a range, summed in SQL: one row per combination instead
   * of one per entry. On PostgreSQL over the NUMERIC amounts; on SQLite over nine-digit slices of the decimal
   * amounts (each slice sum exact in 64 bits), recombined with BigInt, and each statement also answers, in one row
   * more, the data version it read (and `along`, see totalsWith).
   */
  private async edgeTotals(
    select: LedgerSelect, ranges: readonly Range[], names: { sql: string[]; bindings: Knex.RawBinding[] }, along: Along | undefined,
  ): Promise<{ totals: ComboTotals[]; version?: number; along?: unknown }> {
    if (dialectOf(this.db).wei === 'numeric') {
      // NUMERIC(78,0) amounts (PostgreSQL): SQL sums them exactly, one row per combination; no data version rides along.
      const { sql, bindings } = edgeStatements(ranges, names).numeric;
      return { totals: (await select(sql, bindings)).map((r) => ({
        workflow: String(r.workflow), relayer: String(r.relayer), network: String(r.network),
        txCount: Number(r.tx_count), revertedCount: Number(r.reverted_count),
        gasSpendWei: BigInt(r.g as string), valueWei: BigInt(r.v as string), revertedGasWei: BigInt(r.r as string),
      })) };
    }
    const statements = edgeStatements(ranges, names, along);
    // Amounts of up to 18 digits fit a 64-bit integer, and SQLite's SUM refuses to overflow: the plain sum is
    // exact or fails. Longer amounts, or an overflow, take nine-digit slices (each slice sum exact).
    const plain = await select(statements.plain.sql, statements.plain.bindings).then(withMarker, () => undefined);
    if (plain && plain.rows.every((r) => Number(r.gas_digits) <= 18 && Number(r.value_digits) <= 18)) {
      return { version: plain.version, along: plain.along, totals: plain.rows.map((r) => ({
        workflow: String(r.workflow), relayer: String(r.relayer), network: String(r.network),
        txCount: Number(r.tx_count), revertedCount: Number(r.reverted_count),
        gasSpendWei: BigInt(r.g as string), valueWei: BigInt(r.v as string), revertedGasWei: BigInt((r.r as string | null) ?? 0),
      })) };
    }
    // The version (and `along`) of the first statement that answered: a later one cannot have read an older state.
    const sliced = withMarker(await select(statements.sliced.sql, statements.sliced.bindings));
    return { version: plain?.version ?? sliced.version, along: plain ? plain.along : sliced.along, totals: sliced.rows.map((r) => ({
      workflow: String(r.workflow), relayer: String(r.relayer), network: String(r.network),
      txCount: Number(r.tx_count), revertedCount: Number(r.reverted_count),
      gasSpendWei: fromDigitSlices(DIGIT_SLICES.map((i) => r[`g${i}`] as string)),
      valueWei: fromDigitSlices(DIGIT_SLICES.map((i) => r[`v${i}`] as string)),
      revertedGasWei: fromDigitSlices(DIGIT_SLICES.map((i) => r[`r${i}`] as string)),
    })) };
  }

  private entryConditions(filter: SpendFilter): { sql: string[]; bindings: Knex.RawBinding[] } {
    const names = nameConditions(filter);
    const sql = [...names.sql];
    const bindings = [...names.bindings];
    if (filter.since !== undefined) {
      sql.push('recorded_at >= ?');
      bindings.push(filter.since);
    }
    if (filter.until !== undefined) {
      sql.push('recorded_at <= ?');
      bindings.push(filter.until);
    }
    return { sql, bindings };
  }

  async latest(filter: SpendFilter, limit: number): Promise<LedgerEntry[]> {
    if (limit <= 0) return [];
    const c = this.entryConditions(filter);
    const sql = `SELECT * FROM spend_entries${where(c.sql)} ORDER BY recorded_at DESC, id DESC LIMIT ?`;
    return rowsOf(await this.db.raw(sql, [...c.bindings, limit])).map(rowToEntry);
  }

  async *scan(filter: SpendFilter, pageSize: number): AsyncIterable<LedgerEntry[]> {
    const c = this.entryConditions(filter);
    let after: { at: number; id: number } | undefined;
    for (;;) {
      const sql = [...c.sql];
      const bindings = [...c.bindings];
      if (after) {
        sql.push('(recorded_at > ? OR (recorded_at = ? AND id > ?))');
        bindings.push(after.at, after.at, after.id);
      }
      const rows = rowsOf(await this.db.raw(`SELECT * FROM spend_entries${where(sql)} ORDER BY recorded_at, id LIMIT ?`, [...bindings, pageSize]));
      if (!rows.length) return;
      yield rows.map(rowToEntry);
      if (rows.length < pageSize) return;
      const last = rows[rows.length - 1]!;
      after = { at: Number(last.recorded_at), id: Number(last.id) };
    }
  }

  async pending(limit: number): Promise<PendingReceipt[]> {
    const rows = await this.db('spend_pending').where({ state: 'pending' }).orderBy('recorded_at').limit(limit).select('body');
    return rows.map((r: Row) => bodyToPending(String(r.body)));
  }

  async claim(owner: string, now: number, claimUntil: number, limit: number): Promise<PendingReceipt[]> {
    const lease = leaseSql(this.dbNow, now, claimUntil);
    const free = `state = 'pending' AND (claimed_by IS NULL OR claimed_by = ? OR claimed_until < ${lease.now})`;
    // The candidates are picked once (a materialized CTE): a subquery under IN may be scanned again by PostgreSQL's
    // plan, and with SKIP LOCKED each scan may pick other rows, so that more than `limit` would be taken.
    const rows = rowsOf(await this.db.raw(
      `WITH picked AS MATERIALIZED (SELECT step_run_id, tx_hash FROM spend_pending WHERE ${free} ORDER BY recorded_at LIMIT ?${this.skipLocked})
       UPDATE spend_pending SET claimed_by = ?, claimed_until = ${lease.until}
       WHERE (step_run_id, tx_hash) IN (SELECT step_run_id, tx_hash FROM picked) AND ${free}
       RETURNING body, recorded_at, step_run_id`,
      [owner, ...lease.nowArgs, limit, owner, ...lease.untilArgs, owner, ...lease.nowArgs],
    ));
    // RETURNING keeps no order: the oldest first, as `pending` gives them.
    rows.sort((a, b) => Number(a.recorded_at) - Number(b.recorded_at) || String(a.step_run_id).localeCompare(String(b.step_run_id)));
    return rows.map((r) => bodyToPending(String(r.body)));
  }

  async complete(pending: PendingReceipt, entry: LedgerEntry): Promise<void> {
    await this.db.transaction(async (trx) => {
      await appendEntries(trx, [entry]);
      await trx('spend_pending').where({ step_run_id: pending.stepRunId, tx_hash: pending.txHash ?? '' }).delete();
    });
  }

  async fail(pending: PendingReceipt, reason: string): Promise<void> {
    await this.db('spend_pending').where({ step_run_id: pending.stepRunId, tx_hash: pending.txHash ?? '' }).update({ state: 'failed', error: reason });
  }

  async counts(): Promise<{ pending: number; gaps: number }> {
    const rows = await this.db('spend_pending').select('state').count({ n: '*' }).groupBy('state');
    const of = (state: string): number => Number((rows as Row[]).find((r) => r.state === state)?.n ?? 0);
    return { pending: of('pending'), gaps: of('failed') };
  }
}
