import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { LedgerAppendResult, PendingReceipts, SpendFilter, SpendLedger } from '../../application/ports/spend-ledger';
import type { LedgerEntry, PendingReceipt } from '../../domain/spend/ledger-entry';
import { zeroTotals, type ComboTotals } from '../../domain/spend/spend-totals';
import { Database } from './knex-journal.writer';
import { coverRange, type Range } from './spend-cover';
import { AMOUNT_COLUMNS, fromLimbs } from './spend-limbs';
import { appendEntries, bodyToPending, rowToEntry } from './spend-store';

type Row = Record<string, unknown>;
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
const comboKey = (r: Row): string => `${r.workflow as string}\n${r.relayer as string}\n${r.network as string}`;
const sumText = (column: string): string => `CAST(SUM(${column}) AS TEXT) AS ${column}`;

/**
 * The spend ledger on knex. Summaries read the rollups (whole days, then whole hours at the edges) and only
 * the entries of the partial hours at either end of a time range, so their cost does not grow with the
 * ledger; every sum is exact.
 */
@injectable()
export class KnexSpendLedger implements SpendLedger, PendingReceipts {
  constructor(@inject(Database) private readonly db: Knex) {}

  async append(entries: readonly LedgerEntry[]): Promise<LedgerAppendResult> {
    if (!entries.length) return { written: 0, duplicates: 0 };
    return this.db.transaction((trx) => appendEntries(trx, entries));
  }

  async totals(filter: SpendFilter): Promise<ComboTotals[]> {
    const combos = new Map<string, ComboTotals>();
    const comboOf = (r: Row): ComboTotals => {
      const key = comboKey(r);
      let c = combos.get(key);
      if (!c) {
        c = { workflow: String(r.workflow), relayer: String(r.relayer), network: String(r.network), ...zeroTotals() };
        combos.set(key, c);
      }
      return c;
    };
    const names = nameConditions(filter);
    const cover = coverRange(filter.since, filter.until === undefined ? undefined : filter.until + 1);
    // One statement for every rollup range, one for every edge of entries: each part is an index range.
    const sumColumns = ['tx_count', 'reverted_count', ...AMOUNT_COLUMNS.gas, ...AMOUNT_COLUMNS.value, ...AMOUNT_COLUMNS.reverted];
    if (cover.buckets.length) {
      const parts: string[] = [];
      const bindings: Knex.RawBinding[] = [];
      for (const { grain, range } of cover.buckets) {
        const time = rangeConditions('bucket', range);
        parts.push(`SELECT workflow, relayer, network, ${sumColumns.join(', ')} FROM spend_rollups${where(['grain = ?', ...time.sql, ...names.sql])}`);
        bindings.push(grain, ...time.bindings, ...names.bindings);
      }
      const sql = `SELECT workflow, relayer, network, ${sumColumns.map(sumText).join(', ')} FROM (${parts.join(' UNION ALL ')}) AS parts GROUP BY workflow, relayer, network`;
      for (const r of rowsOf(await this.db.raw(sql, bindings))) {
        const c = comboOf(r);
        c.txCount += Number(r.tx_count);
        c.revertedCount += Number(r.reverted_count);
        c.gasSpendWei += fromLimbs(AMOUNT_COLUMNS.gas.map((k) => r[k] as string));
        c.valueWei += fromLimbs(AMOUNT_COLUMNS.value.map((k) => r[k] as string));
        c.revertedGasWei += fromLimbs(AMOUNT_COLUMNS.reverted.map((k) => r[k] as string));
      }
    }
    if (cover.raw.length) {
      const parts: string[] = [];
      const bindings: Knex.RawBinding[] = [];
      for (const range of cover.raw) {
        const time = rangeConditions('recorded_at', range);
        parts.push(`SELECT workflow, relayer, network, gas_spend_wei, value_wei, reverted FROM spend_entries${where([...time.sql, ...names.sql])}`);
        bindings.push(...time.bindings, ...names.bindings);
      }
      for (const r of rowsOf(await this.db.raw(parts.join(' UNION ALL '), bindings))) {
        const c = comboOf(r);
        const gas = BigInt(r.gas_spend_wei as string);
        const reverted = r.reverted === true || Number(r.reverted) === 1;
        c.txCount += 1;
        c.gasSpendWei += gas;
        c.valueWei += BigInt(r.value_wei as string);
        if (reverted) {
          c.revertedCount += 1;
          c.revertedGasWei += gas;
        }
      }
    }
    return [...combos.values()].filter((c) => c.txCount > 0);
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
