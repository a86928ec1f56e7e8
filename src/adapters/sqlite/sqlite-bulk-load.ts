import { isBusy, type Connection } from './sqlite-client';

/**
 * A bulk load into an empty SQLite journal (`chainflow journal import` on a fresh database) writes its pages once,
 * through a rollback journal, instead of twice through the WAL (once into the WAL, then again into the database at
 * the checkpoint after the commit: some 650 MB each for 1M events). A rollback journal holds the original content
 * of the pages a transaction changes, and the pages of an empty database's file are few: the new pages, appended
 * past the file's original end, are not journaled at all.
 *
 * All-or-nothing holds as in WAL mode: a rolled-back import (a bad line, an event refused) restores the journaled
 * pages and cuts the file back; a killed one leaves a hot journal that SQLite plays back at the next open (any
 * process's), so the database is as empty as before. Synchronous is FULL for the load (the journal is synced before
 * the database is written, the database before the journal is deleted): a power loss too cannot leave it half-written.
 *
 * Only when no other connection has the database open (SQLite refuses to leave WAL mode otherwise, at once with
 * the busy timeout at 0), so an engine already running on the database keeps reading it and its writes wait, as with
 * any import. A process that opens the database during the load waits for it (see sqlite-open.ts). Afterwards the
 * connection is in WAL mode again, with its own busy timeout and synchronous level.
 *
 * Returns how to put the connection back, or undefined when the database is not empty or is open elsewhere (the load
 * then goes through the WAL as any other write).
 */
export async function rollbackJournalWhenEmpty(conn: Connection): Promise<(() => Promise<void>) | undefined> {
  const [state] = await rows(conn, "SELECT NOT EXISTS (SELECT 1 FROM events) AS empty, (SELECT * FROM pragma_busy_timeout) AS busy, (SELECT * FROM pragma_synchronous) AS sync");
  if (!state?.empty) return undefined;
  const busy = Number(state.busy);
  const sync = Number(state.sync);
  const restore = async (): Promise<void> => {
    await exec(conn, `PRAGMA busy_timeout = ${busy}; PRAGMA synchronous = ${sync}`);
    // Back to WAL: should a process have opened the database meanwhile and be reading it, after its busy timeout
    // the database stays in rollback mode until the next open (every connection asks for WAL when it opens).
    await exec(conn, 'PRAGMA journal_mode = WAL').catch((err: unknown) => {
      if (!isBusy(err)) throw err;
    });
  };
  try {
    await exec(conn, 'PRAGMA busy_timeout = 0');
    const [mode] = await rows(conn, 'PRAGMA journal_mode = DELETE');
    if (mode?.journal_mode !== 'delete') {
      await restore();
      return undefined;
    }
    await exec(conn, 'PRAGMA synchronous = FULL');
    return restore;
  } catch (err) {
    await restore();
    if (isBusy(err)) return undefined;
    throw err;
  }
}

const exec = (conn: Connection, sql: string): Promise<void> =>
  new Promise((resolve, reject) => conn.exec(sql, (err) => (err ? reject(err) : resolve())));

/** Rows of a statement prepared for this once (a pragma is not worth a place in the connection's statement cache). */
const rows = (conn: Connection, sql: string): Promise<Record<string, unknown>[]> =>
  new Promise((resolve, reject) => {
    const statement = conn.prepare(sql, (err) => {
      if (err) reject(err);
    });
    statement.all([], (err, result) => {
      statement.finalize();
      if (err) reject(err);
      else resolve(result as Record<string, unknown>[]);
    });
  });
