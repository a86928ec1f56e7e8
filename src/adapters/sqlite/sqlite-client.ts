import type { Knex } from 'knex';
import { plussedText, statementOf, toStorageError } from '../knex';
// knex's own SQLite dialect and transaction, extended below; its package exports them by path only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Client_SQLite3 = require('knex/lib/dialects/sqlite3') as new (config: Knex.Config) => SqliteClientBase;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Transaction_Sqlite = require('knex/lib/dialects/sqlite3/execution/sqlite-transaction') as new (...args: unknown[]) => TransactionBase;

/** The parts of node-sqlite3 this client uses. */
export interface Statement {
  all(params: unknown[], cb: (this: Statement, err: Error | null, rows: unknown[]) => void): void;
  run(params: unknown[], cb: (this: Statement, err: Error | null) => void): void;
  finalize(cb?: () => void): void;
}
export interface Connection {
  prepare(sql: string, cb: (err: Error | null) => void): Statement;
  exec(sql: string, cb: (err: Error | null) => void): void;
  close(cb: (err: Error | null) => void): void;
}
interface QueryObject {
  sql: string;
  bindings?: unknown[];
  method?: string;
  returning?: unknown;
  response?: unknown;
  context?: unknown;
}
interface SqliteClientBase {
  _query(connection: Connection, obj: QueryObject): Promise<QueryObject>;
  destroyRawConnection(connection: Connection): Promise<void>;
  transaction(container: unknown, config: unknown, outerTx: unknown): PromiseLike<unknown>;
}
interface TransactionBase extends PromiseLike<unknown> {
  trxClient: { query(conn: Connection, sql: string): Promise<unknown> };
  _completed: boolean;
}

/**
 * How long a write transaction keeps trying to get the database while another process writes: each try waits
 * up to the connection's busy timeout at BEGIN, and the whole transaction is tried again until this has passed.
 */
export const WRITE_RETRY_MS = 60_000;

/** SQLITE_BUSY (and its extended codes): another connection holds the write lock. Raw or as a StorageError. */
export function isBusy(err: unknown): boolean {
  const e = err as { code?: unknown; driverCode?: unknown; message?: unknown } | null;
  return !!e && (e.code === 'SQLITE_BUSY' || e.driverCode === 'SQLITE_BUSY' || /^SQLITE_BUSY\b/.test(String(e.message ?? '')));
}

/**
 * Every transaction of chainflow writes, so it takes SQLite's write lock when it begins (waiting for it up to the
 * busy timeout), instead of at its first write: a deferred transaction that read before another process committed
 * cannot upgrade to a writer (SQLITE_BUSY at once, whatever the timeout).
 */
class ImmediateTransaction extends Transaction_Sqlite {
  /**
   * knex's own `begin` swallows a failed BEGIN and runs the transaction's work anyway (each of its queries then
   * fails as "already complete"); a BEGIN that fails here fails the transaction before any of its work runs.
   */
  async begin(conn: Connection): Promise<unknown> {
    try {
      return await this.trxClient.query(conn, 'BEGIN IMMEDIATE;');
    } catch (err) {
      this._completed = true;
      throw err;
    }
  }
}

/** Prepared statements kept per connection; the least recently used is finalized past this many. */
const MAX_STATEMENTS = 256;

const caches = new WeakMap<Connection, Map<string, Promise<Statement>>>();

/** The connection's prepared statement for `sql` (prepared on first use, kept for the next). */
export function prepared(connection: Connection, sql: string): Promise<Statement> {
  let cache = caches.get(connection);
  if (!cache) caches.set(connection, (cache = new Map()));
  const hit = cache.get(sql);
  if (hit) {
    // Map order is insertion order: moving the hit to the end keeps the least recently used first.
    cache.delete(sql);
    cache.set(sql, hit);
    return hit;
  }
  const statement = new Promise<Statement>((resolve, reject) => {
    const s = connection.prepare(sql, (err) => (err ? reject(err) : resolve(s)));
  });
  // A statement that does not prepare is not kept: the next call reports its error again.
  statement.catch(() => cache!.delete(sql));
  cache.set(sql, statement);
  if (cache.size > MAX_STATEMENTS) {
    const [oldest, evicted] = cache.entries().next().value as [string, Promise<Statement>];
    cache.delete(oldest);
    void evicted.then((s) => s.finalize(), () => undefined);
  }
  return statement;
}

/**
 * knex's SQLite client with a cache of prepared statements per connection. node-sqlite3's `Database#all` and
 * `#run` prepare, step and finalize a new statement on every call: three trips through the driver's thread pool.
 * A cached statement is one trip, which roughly halves the cost of every small query (the engine's journal
 * appends are a handful of them per step). Statements are only ever run to completion (`all`/`run`), so a cached
 * one never holds a read transaction open between queries.
 */
export class CachedStatementSqliteClient extends Client_SQLite3 {
  override async _query(connection: Connection, obj: QueryObject): Promise<QueryObject> {
    if (!obj.sql) throw new Error('The query is empty');
    const write = obj.method === 'insert' || obj.method === 'update' ? !obj.returning : obj.method === 'counter' || obj.method === 'del';
    const statement = await prepared(connection, obj.sql);
    const run = (): Promise<QueryObject> => new Promise((resolve, reject) => {
      const done = function (this: Statement, err: Error | null, rows?: unknown[]): void {
        if (err) return reject(err);
        obj.response = rows;
        // knex reads lastID and changes from the callback's context, as with Database#run.
        obj.context = this;
        resolve(obj);
      };
      if (write) statement.run(obj.bindings ?? [], done);
      else statement.all(obj.bindings ?? [], done);
    });
    // A statement of its own (autocommit) that found the database busy past the busy timeout did nothing: it is run
    // again, as a transaction is (a `journal import` holds the write lock for as long as its one transaction lasts).
    // A BEGIN is left to the transaction's own retry, which runs the whole transaction again.
    return /^\s*BEGIN\b/i.test(obj.sql) ? run() : retryWhileBusy(run);
  }

  /**
   * A transaction that finds the database busy (another process held the write lock past the busy timeout) is
   * run again, whole, with a growing pause, until WRITE_RETRY_MS has passed. Nested transactions (savepoints)
   * run inside their outer one.
   */
  override transaction(container: unknown, config: unknown, outerTx: unknown): PromiseLike<unknown> {
    const attempt = (): TransactionBase => new ImmediateTransaction(this, container, config, outerTx);
    if (outerTx) return attempt();
    return retryWhileBusy(attempt);
  }

  override async destroyRawConnection(connection: Connection): Promise<void> {
    const cache = caches.get(connection);
    caches.delete(connection);
    if (cache) {
      await Promise.all([...cache.values()].map((p) => p.then((s) => new Promise<void>((r) => s.finalize(() => r())), () => undefined)));
    }
    return super.destroyRawConnection(connection);
  }
}

/** Runs `attempt` again while it fails with SQLITE_BUSY, with a growing pause, for up to WRITE_RETRY_MS. */
export async function retryWhileBusy<T>(attempt: () => PromiseLike<T>): Promise<T> {
  const deadline = Date.now() + WRITE_RETRY_MS;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      const pause = Math.min(1000, 20 * 2 ** n) * (0.5 + Math.random() / 2);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The rows of `sql` on `connection`: its prepared statement (see `prepared`) run to completion, in one driver trip. */
export async function allRows(connection: Connection, sql: string, bindings: readonly unknown[]): Promise<Record<string, unknown>[]> {
  const statement = await prepared(connection, sql);
  return new Promise((resolve, reject) => {
    statement.all([...bindings], (err, rows) => (err ? reject(err) : resolve(rows as Record<string, unknown>[])));
  });
}

/**
 * The rows of one read statement run straight on the raw connection of knex's pool (a prepared statement, one trip
 * through the driver), skipping knex's query runner. For a hot, small read (the budget check before a send): fewer
 * JavaScript layers per call means less code for V8 to compile while it warms up, which was most of that check's
 * p99 (see docs/benchmarks.md). Not inside a transaction (`db` must be the root knex).
 */
export async function selectOnPool(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Record<string, unknown>[]> {
  const client = db.client as Knex.Client & { acquireConnection(): Promise<Connection>; releaseConnection(c: Connection): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    const text = plussedText(sql);
    return await retryWhileBusy(() => allRows(conn, text, bindings));
  } catch (err) {
    throw toStorageError(err, statementOf(sql));
  } finally {
    void client.releaseConnection(conn);
  }
}
