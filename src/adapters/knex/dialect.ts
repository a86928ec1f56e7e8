import type { Knex } from 'knex';
import type { StorageKind } from '../../application/ports/storage-health';

export type Row = Record<string, unknown>;

/** Marks a WriteSession (see isWriteSession): a session is no knex instance, and code that takes either tells them apart by it. */
export const WRITE_SESSION: unique symbol = Symbol('chainflow.writeSession');

/**
 * A write transaction that holds its writes back and sends them as one script at the next read or the commit
 * (SQLite's, see adapters/sqlite/sqlite-session.ts). Only for statements whose results are not needed.
 */
export interface WriteSession {
  readonly [WRITE_SESSION]: true;
  /** The dialect of the database the session writes to. */
  readonly dialect: StoreDialect;
  /**
   * Writes travel as SQL text, one script per flush (SQLite): rows are best written as literals. False: as bound
   * parameters.
   */
  readonly textScripts: boolean;
  /** Rows of a query, after the writes held back so far (`ahead`: before them, after every write already started). */
  select(sql: string, bindings?: readonly unknown[], options?: { ahead?: boolean }): Promise<Row[]>;
  /** A write, held back until the next read or the commit. */
  write(sql: string, bindings?: readonly unknown[]): void;
  /** Starts the writes held back so far while the caller prepares more. */
  flushSoon(): void;
}

/** Writes held back until `send` (or a read), then sent together (PostgreSQL's PgWriteBatch). */
export interface DeferredWrites extends WriteSession {
  send(): Promise<void>;
}

export function isWriteSession(db: unknown): db is WriteSession {
  return typeof db === 'object' && db !== null && (db as Partial<WriteSession>)[WRITE_SESSION] === true;
}

/** One read statement (`?` placeholders) on the writer connection, outside any transaction: its own snapshot. */
export type UnlockedSelect = (sql: string, bindings: readonly unknown[]) => Promise<Row[]>;

/** What the reads decided: writes to make only if the database is still as it was when `version` was read. */
export interface GuardedWrites {
  /** `data_version` as the first read saw it (`SELECT data_version FROM pragma_data_version`, in that statement). */
  readonly version: number;
  readonly writes: readonly { readonly sql: string; readonly bindings: readonly unknown[] }[];
}

/**
 * What differs between the databases the knex adapters run on, as one small port: each technology implements it in
 * its folder (adapters/sqlite, adapters/postgres), the composition root opens the storage url's technology, which
 * gives the database handle its dialect (useDialect), and the repositories ask the handle for it (dialectOf). The
 * repositories' shared SQL stays here; only what one database does differently, or faster, goes through this.
 */
export interface StoreDialect {
  readonly kind: StorageKind;
  /** SQL of the larger of two values (SQLite's two-argument `MAX`, PostgreSQL's `GREATEST`). */
  greatest(a: string, b: string): string;
  /** Appended to a claim's SELECT: concurrent claimers skip the rows another is claiming (empty where one writer holds the only lock). */
  readonly skipLocked: string;
  /** Appended to a SELECT that locks its rows for an update (empty where one writer holds the only lock). */
  readonly forUpdate: string;
  /** Appended to a fence check's SELECT: a concurrent claim waits for the checking transaction (empty where one writer holds the only lock). */
  readonly forShare: string;
  /** SQL of the database's clock in epoch milliseconds, for lease times; undefined: the caller's times. */
  readonly clockSql: string | undefined;
  /**
   * One writer at a time (SQLite's write lock): a read before a write in a write transaction decides, what a process
   * wrote is all that changed since its own reads unless the data version moved, and one statement is cheaper than a
   * transaction of several. Where false, several processes write and the database decides (keys, row locks), and
   * counts kept by triggers go to rows of each backend rather than one row every writer would lock (migration 0026).
   */
  readonly oneWriter: boolean;
  /**
   * SQLite's fast forms (docs/performance.md): rows keep their rendered item in a stored column made by rebuilding
   * the table (rebuildWithItem), and lists read packed columns. Where false, rows are read whole; PostgreSQL keeps
   * its items as generated columns added in place (generatedItems).
   */
  readonly storedItems: boolean;
  /**
   * Adds to tables (or drops) a text column (`item` unless named) the database computes from each row by an
   * expression of item-sql.ts's `postgres-stored` form (PostgreSQL, migrations 0025 and 0027). Undefined where items
   * are kept otherwise.
   */
  readonly generatedItems: {
    add(db: Knex, items: readonly { readonly table: string; readonly item: string }[], column?: string): Promise<void>;
    drop(db: Knex, tables: readonly string[], column?: string): Promise<void>;
  } | undefined;
  /**
   * A list page's statement is planned once for every value it is run with (PostgreSQL's readers run them as generic
   * plans, see PgReaders): a page with at most one filter is written so that only one index can give its order
   * (filterOnce in list-reads.ts). False: each statement plans for its values (SQLite keeps its plan per statement).
   */
  readonly pagesPlannedOnce: boolean;
  /**
   * A condition that a partial index's own predicate implies still positions a search of that index (SQLite). False
   * (PostgreSQL): it is left out of the search, so such a column leading an index leaves the columns after it unable
   * to position a scan (migration 0028).
   */
  readonly partialIndexKeys: boolean;
  /** Multi-row inserts as one JSON document unpacked by the database (`json_each`) instead of bound VALUES. */
  readonly jsonInserts: boolean;
  /** How wei and token amounts are stored: TEXT (exact decimal), or NUMERIC(78,0) (summed exactly by SQL). */
  readonly wei: 'text' | 'numeric';
  /**
   * SQL of the stored events' keys of the stream named by `streamSql` (a column of the outer query), as JSON text
   * `[[seq, hash], …]` (`[]` for none): the journal writer reads them with the runs' rows, in the same statement.
   */
  streamKeys(streamSql: string): string;
  /**
   * An `UPDATE … RETURNING` may stand in a WITH clause, the statement around it reading its rows beside the rows as
   * they were before it (PostgreSQL's data-modifying CTEs): one round trip where it would be two.
   */
  readonly modifyingCte: boolean;
  /** SQL of a JSON object of counts (bucket -> count) merging two such objects' columns, counts added. */
  mergeCounts(held: string, added: string): string;
  /**
   * SQL updating `columns` of `table`'s rows from one JSON array of records (the one binding), matched on `key`:
   * many rows in one statement where each statement is a round trip. Undefined: one UPDATE per row (SQLite, where a
   * statement costs no trip).
   */
  readonly bulkUpdate: ((table: string, columns: readonly string[], key: string) => string) | undefined;
  /**
   * Where each statement is a round trip (PostgreSQL): the writes of a transaction gathered and sent as one statement
   * at `send` (or the next read). Undefined: each write is sent as it comes (or held by a write session).
   */
  readonly deferWrites: ((trx: Knex | Knex.Transaction) => DeferredWrites) | undefined;
  /** Write sessions (SQLite), or undefined: a knex transaction is the write transaction. */
  readonly writeSessions: { transact<T>(db: Knex, work: (session: WriteSession) => Promise<T>, options?: { bulkLoad?: boolean }): Promise<T> } | undefined;
  /**
   * A write decided on reads without the lock and committed unless another process wrote since (true), or refused
   * (false: decide again under the lock). Undefined where no such shortcut exists.
   */
  readonly guardedWrite: ((db: Knex, work: (select: UnlockedSelect) => Promise<GuardedWrites | undefined>) => Promise<boolean>) | undefined;
  /** A read on the pool, with its rows (SQLite: straight on the connection, past knex's query builder). */
  select(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]>;
  /** Rebuilds a freshly created (empty) table into the database's fastest form for it (SQLite: WITHOUT ROWID). */
  clusterOnKey(db: Knex, table: string): Promise<void>;
  /**
   * Makes `table` again by `columns` with `item` as a stored generated column (none: without it), its rows, indexes
   * and triggers kept. Only where storedItems.
   */
  rebuildWithItem(db: Knex, table: string, columns: (t: Knex.CreateTableBuilder) => void, names: readonly string[], item?: string): Promise<void>;
}

/**
 * A database's dialect rides on its knex config: transactions share the config, and knex's migrator copies it
 * (withUserParams), so each handle of one database, migrations' included, finds the same dialect.
 */
interface DialectConfig {
  storeDialect?: StoreDialect;
}

export function useDialect(db: Knex, dialect: StoreDialect): void {
  (db.client.config as DialectConfig).storeDialect = dialect;
}

/** The dialect of a database handle (a knex instance, one of its transactions, or a write session). */
export function dialectOf(db: Knex | Knex.Transaction | WriteSession): StoreDialect {
  if (isWriteSession(db)) return db.dialect;
  const dialect = (db.client.config as DialectConfig | undefined)?.storeDialect;
  if (!dialect) throw new Error('a database opened without a dialect (open it through openDatabase)');
  return dialect;
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

/** The SQL of "now" for lease times on this database, or undefined when they are the caller's (see LeaseClock). */
export function databaseNow(db: Knex): string | undefined {
  return leaseClocks.get(db) === 'caller' ? undefined : dialectOf(db).clockSql;
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
