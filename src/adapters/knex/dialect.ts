import type { Knex } from 'knex';
import { SqliteWriteSession } from './sqlite-session';

/** Whether a knex instance (or transaction, or a SQLite write session) talks to SQLite: some statements have a faster SQLite form. */
export function isSqlite(db: Knex | Knex.Transaction | SqliteWriteSession): boolean {
  return db instanceof SqliteWriteSession || (db.client as { dialect?: string }).dialect === 'sqlite3';
}

/**
 * Where lease times come from. `database` (PostgreSQL's default, CONTRACT 10): the server's clock, so that processes
 * whose clocks disagree still agree on when a lease runs out; the caller's `now` and `leaseUntil` only give the
 * lease's length. `caller`: the times as the caller gives them (SQLite, one host; and tests that drive time).
 */
export type LeaseClock = 'database' | 'caller';

const leaseClocks = new WeakMap<object, LeaseClock>();

export function setLeaseClock(db: Knex, clock: LeaseClock): void {
  leaseClocks.set(db, clock);
}

/** PostgreSQL's clock in epoch milliseconds (clock_timestamp: the moment the expression runs, not the transaction's start). */
const PG_NOW_MS = 'CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)';

/** The SQL of "now" for lease times on this database, or undefined when they are the caller's (see LeaseClock). */
export function databaseNow(db: Knex): string | undefined {
  return isSqlite(db) || leaseClocks.get(db) === 'caller' ? undefined : PG_NOW_MS;
}

/** A lease's end and "now" for lease comparisons, as SQL with their bindings, on the lease clock of `dbNow` (see databaseNow). */
export interface LeaseSql {
  readonly until: string;
  readonly untilArgs: number[];
  readonly now: string;
  readonly nowArgs: number[];
}

export function leaseSql(dbNow: string | undefined, now: number, leaseUntil: number): LeaseSql {
  return dbNow
    ? { until: `${dbNow} + ?`, untilArgs: [leaseUntil - now], now: dbNow, nowArgs: [] }
    : { until: '?', untilArgs: [leaseUntil], now: '?', nowArgs: [now] };
}
