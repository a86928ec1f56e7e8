import type { Knex } from 'knex';
import { inline, plussedText, statementOf, toStorageError, type GuardedWrites, type UnlockedSelect } from '../knex';
import { allRows, isBusy, retryWhileBusy, type Connection } from './sqlite-client';

/** The guard's refusal: another connection committed since the reads. */
const CHANGED = 'chainflow: the database changed since it was read';

/**
 * A temp table whose insert checks the version: RAISE is only allowed in a trigger. The row itself is never kept
 * (RAISE(IGNORE)). Made once per connection; temp objects live and die with it.
 */
const GUARD = `CREATE TEMP TABLE IF NOT EXISTS write_guard (seen INTEGER);
CREATE TEMP TRIGGER IF NOT EXISTS write_guard_check BEFORE INSERT ON write_guard BEGIN
  SELECT RAISE(ABORT, '${CHANGED}') WHERE NEW.seen IS NOT (SELECT data_version FROM pragma_data_version);
  SELECT RAISE(IGNORE);
END`;
const guarded = new WeakSet<Connection>();

/** A script on the connection; its failure as the driver gives it (the guard's refusal is known by its message). */
const exec = (conn: Connection, sql: string): Promise<void> => new Promise((resolve, reject) => conn.exec(sql, (err) => (err ? reject(err) : resolve())));

interface PoolClient {
  acquireConnection(): Promise<Connection>;
  releaseConnection(connection: Connection): Promise<void>;
}

/**
 * A read-decide-write in two trips through the driver instead of a locked transaction's four or more: `work`
 * reads outside any transaction and answers what it decided, with the writes that carry it out; they are then sent
 * as one script, `BEGIN IMMEDIATE`, a guard, the writes, `COMMIT`, which commits only if no other connection
 * committed since `work`'s first read. `PRAGMA data_version` tells: it moves with every other connection's commit,
 * and this connection cannot commit meanwhile, since it is held (knex's pool has one writer connection) from the
 * first read to the commit. So the writes land exactly as if the reads had been made under the lock. A decision
 * with no writes is checked the same way, by reading the version again (one trip, no lock): its reads were one
 * state. Resolves to whether the decision stands (written, or nothing to write): false when `work` answered
 * nothing, when another connection committed since the first read, or when another process held the write lock
 * past the busy timeout (nothing written then; the caller decides again under the lock).
 */
export async function writeUnlessChanged(db: Knex, work: (select: UnlockedSelect) => Promise<GuardedWrites | undefined>): Promise<boolean> {
  const client = db.client as PoolClient;
  const conn = await client.acquireConnection();
  try {
    // A read is retried while busy, as selectOnPool's (WAL reads are refused only in rare moments, such as a recovery).
    const plan = await work((sql, bindings) => retryWhileBusy(() => allRows(conn, plussedText(sql), bindings)).catch((err: unknown) => {
      throw toStorageError(err, statementOf(sql));
    }));
    if (!plan) return false;
    if (!plan.writes.length) {
      const [row] = await allRows(conn, 'SELECT data_version FROM pragma_data_version', []);
      return Number(row?.data_version) === plan.version;
    }
    if (!guarded.has(conn)) {
      await exec(conn, GUARD).catch((err: unknown) => {
        throw toStorageError(err, 'create table write_guard');
      });
      guarded.add(conn);
    }
    const script = ['BEGIN IMMEDIATE', `INSERT INTO temp.write_guard (seen) VALUES (${Math.trunc(plan.version)})`, ...plan.writes.map((w) => inline(w.sql, w.bindings)), 'COMMIT'];
    try {
      await exec(conn, script.join(';\n'));
      return true;
    } catch (err) {
      // A failed script stops at its failing statement: a transaction it began is still open.
      await exec(conn, 'ROLLBACK').catch(() => undefined);
      if (isBusy(err) || String((err as { message?: unknown }).message).includes(CHANGED)) return false;
      throw toStorageError(err, statementOf(plan.writes[0]?.sql ?? 'commit'));
    }
  } finally {
    void client.releaseConnection(conn);
  }
}
