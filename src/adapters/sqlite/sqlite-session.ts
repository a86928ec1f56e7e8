import type { Knex } from 'knex';
import { inline, statementOf, toStorageError, WRITE_SESSION, type StoreDialect, type WriteSession } from '../knex';
import { prepared, retryWhileBusy, type Connection } from './sqlite-client';
import { rollbackJournalWhenEmpty } from './sqlite-bulk-load';

type Row = Record<string, unknown>;

/** Runs a script; a driver failure becomes a one-line StorageError naming the first statement, never its values. */
const run = (conn: Connection, sql: string): Promise<void> =>
  new Promise((resolve, reject) => conn.exec(sql, (err) => (err ? reject(toStorageError(err, statementOf(sql))) : resolve())));

/**
 * One SQLite write transaction on the raw connection of knex's pool, in as few trips through the driver's thread
 * pool as it can: BEGIN IMMEDIATE (one trip), each read a prepared statement (one trip), and the writes held back
 * and sent together with the COMMIT, as one script (one trip). A trip costs far more than SQLite's own work for
 * the small appends of the engine (see docs/benchmarks.md): an append of a step costs three trips instead of eight.
 *
 * Writes are executed before the next read, so a transaction always reads what it wrote. A write that fails
 * fails the whole transaction, which is rolled back. Only for statements whose results are not needed (inserts,
 * upserts); the values are inlined as SQL literals (`sqlLiteral`), however long: one script is one trip, where a
 * bound statement is a trip of its own.
 */
export class SqliteWriteSession implements WriteSession {
  readonly [WRITE_SESSION] = true as const;
  readonly textScripts = true;
  private queued: string[] = [];
  /** Writes under way (see `flushSoon`); their failure surfaces at the next read or the commit. */
  private flushing: Promise<void> = Promise.resolve();
  /** Flushes started and not yet finished; whether one failed (see `flush`). */
  private inFlight = 0;
  private failed = false;

  private constructor(private readonly conn: Connection, readonly dialect: StoreDialect) {}

  /**
   * Runs `work` in a write transaction and commits it (or rolls it back when `work` or a write fails). While
   * another process holds the write lock, the whole transaction is tried again (see retryWhileBusy).
   */
  static async transact<T>(db: Knex, dialect: StoreDialect, work: (session: SqliteWriteSession) => Promise<T>, { bulkLoad = false } = {}): Promise<T> {
    return retryWhileBusy(async () => {
      const conn = (await db.client.acquireConnection()) as Connection;
      // `bulkLoad` (an import): into an empty database, its pages are written once (see rollbackJournalWhenEmpty).
      const restore = bulkLoad ? await rollbackJournalWhenEmpty(conn).catch((err: unknown) => {
        db.client.releaseConnection(conn);
        throw err;
      }) : undefined;
      try {
        await run(conn, 'BEGIN IMMEDIATE');
        const session = new SqliteWriteSession(conn, dialect);
        try {
          const result = await work(session);
          session.queued.push('COMMIT');
          await session.flush();
          return result;
        } catch (err) {
          // Writes started early (flushSoon) finish before the rollback: one statement at a time on the connection.
          await session.flushing.catch(() => undefined);
          await run(conn, 'ROLLBACK').catch(() => undefined);
          throw err;
        }
      } finally {
        await restore?.().catch(() => undefined);
        db.client.releaseConnection(conn);
      }
    });
  }

  /**
   * Rows of a query, after the writes held back so far. `ahead`: before them, after every write already started
   * (the caller takes what the held-back writes change from its own state: an import's next batch, see
   * KnexJournalWriter).
   */
  async select(sql: string, bindings: readonly unknown[] = [], { ahead = false } = {}): Promise<Row[]> {
    // Always after the started writes have finished: the driver runs a statement on any of its threads, so one sent
    // while a script is under way could be run before it.
    if (ahead) await this.flushing;
    else await this.flush();
    const statement = await prepared(this.conn, sql).catch((err: unknown) => {
      throw toStorageError(err, statementOf(sql));
    });
    return new Promise((resolve, reject) => statement.all([...bindings], (err, rows) => (err ? reject(toStorageError(err, statementOf(sql))) : resolve(rows as Row[]))));
  }

  /** A write, held back until the next read or the commit. */
  write(sql: string, bindings: readonly unknown[] = []): void {
    this.queued.push(bindings.length ? inline(sql, bindings) : sql);
  }

  /**
   * Starts the writes held back so far (one script, one trip) while the caller prepares more: an import hashing and
   * folding its next batch. A trip ends on the main thread (the driver takes the next statement only once the last
   * one's callback has run), so a batch's writes go as one, once they are all built.
   */
  flushSoon(): void {
    this.flush().catch(() => undefined);
  }

  /**
   * Runs the writes held back so far, after every flush started before (one statement at a time on the connection,
   * in order). A failed flush fails every later one, so it surfaces at the next read or the commit.
   */
  private flush(): Promise<void> {
    // The writes held back now, not those queued by the time the earlier flushes are done.
    const queued = this.queued;
    this.queued = [];
    const send = async (): Promise<void> => {
      if (queued.length) await run(this.conn, queued.join(';\n'));
    };
    // Sent at once when no flush is under way (waiting even for a settled promise waits for the main thread's next
    // turn, which an import spends folding its next batch); after the others otherwise, and never after one failed.
    const current = this.inFlight === 0 && !this.failed ? send() : this.flushing.then(send);
    this.inFlight++;
    const tracked = current.then(
      () => {
        this.inFlight--;
      },
      (err: unknown) => {
        this.inFlight--;
        this.failed = true;
        throw err;
      },
    );
    this.flushing = tracked;
    return tracked;
  }

}
