import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import { RESERVATION_UNJOURNALED_MS, type BudgetReservations, type ReservationClaim } from '../../application/ports/budget-reservations';
import { scopeValue } from '../../domain/spend/budget';
import { dialectOf, type StoreDialect } from './dialect';
import { Database } from './knex-journal.writer';
import { KnexSpendLedger, type LedgerSelect } from './knex-spend-ledger';
import { plussedText } from './sql-text';

type Row = Record<string, unknown>;
type Write = { readonly sql: string; readonly bindings: Knex.RawBinding[] };
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows);
/** Any fixed key: every reservation of the database is decided under this one PostgreSQL advisory lock. */
const PG_LOCK_KEY = 727_001;
/** The columns of the reservations' read, in the order the JSON text of a versioned read lists them. */
const RESERVATION_COLUMNS = ['send_id', 'budget', 'token', 'amount', 'reserved_at', 'live'] as const;

/**
 * Whether a reservation still counts (1) or not (0), by its send's row in the `sends` projection: a send not yet
 * journaled counts for a while (its process may still journal it); one in flight counts; a settled one's native value
 * counts in the ledger instead, unless its ledger entry still waits for a receipt read; a settled token transfer
 * counts for its window only when it landed.
 */
const LIVE = `CASE WHEN s.send_id IS NULL THEN CASE WHEN r.reserved_at >= ? THEN 1 ELSE 0 END
  WHEN s.status <> 'settled' THEN 1
  WHEN r.token = '' THEN CASE WHEN EXISTS (SELECT 1 FROM spend_pending p WHERE p.step_run_id = s.step_run_id AND p.state = 'pending') THEN 1 ELSE 0 END
  WHEN s.outcome = 'confirmed' THEN 1 ELSE 0 END`;

/**
 * The value caps' reservations on knex, each check and its reservation one atomic step across processes. SQLite:
 * read without the lock, in one statement (the reservations ride in the ledger's first read), and reserved in one
 * trip that commits only if no other connection committed since that read (writeUnlessChanged); else, and for every
 * refusal, one transaction that holds the write lock from its start (BEGIN IMMEDIATE). PostgreSQL: a transaction
 * under one advisory lock. Rows that count no more are deleted by the next reservation of their budget.
 */
@injectable()
export class KnexBudgetReservations implements BudgetReservations {
  private readonly ledger: KnexSpendLedger;

  private readonly dialect: StoreDialect;

  constructor(@inject(Database) private readonly db: Knex) {
    this.dialect = dialectOf(db);
    this.ledger = new KnexSpendLedger(db);
  }

  async reserve(sendId: string, at: number, claims: readonly ReservationClaim[], decide: (counted: readonly bigint[]) => boolean): Promise<boolean> {
    if (!claims.length) return decide([]);
    const { guardedWrite, writeSessions } = this.dialect;
    if (guardedWrite && writeSessions) {
      // Optimistically first: read without the lock and commit the reservation in one trip, unless another process
      // committed since the read (writeUnlessChanged); then it is decided again under the lock.
      let allowed = false;
      const stands = await guardedWrite(this.db, async (select) => {
        const decided = await this.decideWith(select, sendId, at, claims, decide, { versioned: true });
        if (decided?.version === undefined) return undefined;
        allowed = decided.allowed;
        return { version: decided.version, writes: decided.writes };
      });
      if (stands) return allowed;
      return writeSessions.transact(this.db, async (session) => {
        // `+?` placeholders, as the ledger's reads on the pool: a statement with bare parameters is compiled again at
        // every bind, and this transaction holds the write lock meanwhile.
        const { allowed, writes } = (await this.decideWith((sql, bindings) => session.select(plussedText(sql), bindings), sendId, at, claims, decide))!;
        for (const w of writes) session.write(w.sql, w.bindings);
        return allowed;
      });
    }
    return this.db.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?)', [PG_LOCK_KEY]);
      const { allowed, writes } = (await this.decideWith((sql, bindings) => trx.raw(sql, [...bindings]).then(rowsOf), sendId, at, claims, decide))!;
      for (const w of writes) await trx.raw(w.sql, w.bindings);
      return allowed;
    });
  }

  async release(sendId: string): Promise<void> {
    await this.db('budget_reservations').where({ send_id: sendId }).delete();
  }

  /**
   * What counts against each claim and the writes that reserve the claims when `decide` allows them (none when it
   * refuses). Under the lock (`versioned` false) the reservations are read first, then the ledger: a settle that
   * slipped between them, where no lock keeps settles out (PostgreSQL), is counted twice, never missed. Without the
   * lock (`versioned`, SQLite) they ride in the ledger's first statement: one snapshot, one trip, and its data
   * version for writeUnlessChanged. Undefined: that statement did not answer them (the caller decides under the lock).
   */
  private async decideWith(
    select: LedgerSelect, sendId: string, at: number, claims: readonly ReservationClaim[], decide: (counted: readonly bigint[]) => boolean,
    { versioned = false } = {},
  ): Promise<{ allowed: boolean; writes: Write[]; version?: number } | undefined> {
    const budgets = [...new Set(claims.map((c) => c.budget))];
    const tokens = [...new Set(claims.flatMap((c) => (c.token ? [c.token] : [])))];
    const oldest = Math.min(...claims.map((c) => c.since));
    const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
    const reservations = {
      sql: `SELECT r.send_id, r.budget, r.token, r.amount, r.reserved_at, ${LIVE} AS live
       FROM budget_reservations r LEFT JOIN sends s ON s.send_id = r.send_id
       WHERE r.budget IN (${marks(budgets.length)}) AND r.send_id <> ?
         AND (r.token = ''${tokens.length ? ` OR (r.token IN (${marks(tokens.length)}) AND r.reserved_at >= ?)` : ''})`,
      bindings: [at - RESERVATION_UNJOURNALED_MS, ...budgets, sendId, ...(tokens.length ? [...tokens, oldest] : [])],
    };
    // Claims sharing a window share one read of the ledger (its totals per combination are split between them).
    const bySince = new Map<number, ReservationClaim[]>();
    for (const c of claims) if (c.ledger) bySince.set(c.since, [...(bySince.get(c.since) ?? []), c]);
    let rows: Row[] | undefined;
    let version: number | undefined;
    if (!versioned || !bySince.size) {
      // Versioned with no ledger to read: one row more carries the data version this statement read.
      const all = await select(versioned
        ? `SELECT ${RESERVATION_COLUMNS.join(', ')}, NULL AS data_version FROM (${reservations.sql})
           UNION ALL SELECT ${RESERVATION_COLUMNS.map(() => 'NULL').join(', ')}, data_version FROM pragma_data_version`
        : reservations.sql, reservations.bindings);
      const marker = all.find((r) => r.data_version !== null && r.data_version !== undefined);
      rows = marker ? all.filter((r) => r !== marker) : all;
      version = marker ? Number(marker.data_version) : undefined;
    }
    const counted = claims.map(() => 0n);
    for (const [since, group] of bySince) {
      const workflows = [...new Set(group.flatMap((c) => c.ledger!.workflows))];
      const relayers = group.some((c) => c.ledger!.relayers === undefined) ? undefined : [...new Set(group.flatMap((c) => c.ledger!.relayers!))];
      const along = rows ? undefined : { sql: `SELECT json_group_array(json_array(${RESERVATION_COLUMNS.join(', ')})) FROM (${reservations.sql})`, bindings: reservations.bindings };
      const read = await this.ledger.totalsWith(select, { workflows, relayers, since, until: at }, along);
      if (along) {
        if (typeof read.along !== 'string' || read.version === undefined) return undefined;
        version = read.version;
        rows = (JSON.parse(read.along) as unknown[][]).map((values) => Object.fromEntries(RESERVATION_COLUMNS.map((k, i) => [k, values[i]])));
      }
      for (const c of group) counted[claims.indexOf(c)]! += scopeValue(read.totals, c.ledger!);
    }
    if (!rows) return undefined;
    for (const r of rows) {
      if (Number(r.live) !== 1) continue;
      claims.forEach((c, i) => {
        if (c.budget === r.budget && (c.token ?? '') === r.token && (!c.token || Number(r.reserved_at) >= c.since)) counted[i]! += BigInt(r.amount as string);
      });
    }
    if (!decide(counted)) return { allowed: false, writes: [], version };
    const writes: Write[] = [];
    for (const r of rows) {
      if (Number(r.live) === 1) continue;
      writes.push({ sql: 'DELETE FROM budget_reservations WHERE send_id = ? AND budget = ? AND token = ?', bindings: [String(r.send_id), String(r.budget), String(r.token)] });
    }
    writes.push({ sql: 'DELETE FROM budget_reservations WHERE send_id = ?', bindings: [sendId] });
    writes.push({
      sql: `INSERT INTO budget_reservations (send_id, budget, token, amount, reserved_at) VALUES ${claims.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      bindings: claims.flatMap((c) => [sendId, c.budget, c.token ?? '', c.amount.toString(), at]),
    });
    return { allowed: true, writes, version };
  }
}
