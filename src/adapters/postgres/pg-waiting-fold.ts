import type { Knex } from 'knex';
import { FOLDED_SLOT } from '../knex';

/** Any fixed key (another than the budget reservations' 727_001): one fold at a time per database. */
export const FOLD_LOCK_KEY = 727_026;
/** How often an open database folds the waiting counts of ended backends (see foldWaitingCounts). */
export const FOLD_INTERVAL_MS = 60_000;

/**
 * The rows of `workflow_waiting` (migration 0026) whose backend has ended, each locked or skipped, deleted, and
 * their counts added to the folded slot (0) of their workflow: the sum per workflow is unchanged, the rows fewer.
 */
const FOLD_SQL = `WITH ended AS (
    SELECT w.workflow, w.slot FROM workflow_waiting w
    WHERE w.slot <> ${FOLDED_SLOT} AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = w.slot)
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM workflow_waiting w USING ended e WHERE w.workflow = e.workflow AND w.slot = e.slot RETURNING w.workflow, w.runs
  ), folded AS (
    INSERT INTO workflow_waiting AS w (workflow, slot, runs) SELECT workflow, ${FOLDED_SLOT}, sum(runs) FROM gone GROUP BY workflow
    ON CONFLICT (workflow, slot) DO UPDATE SET runs = w.runs + excluded.runs
    RETURNING 1
  )
  SELECT count(*)::int AS n FROM gone`;

/**
 * Folds the waiting counts of backends that have ended into one row per workflow; the number of rows folded.
 *
 * It cannot deadlock, and no writer waits on it but for one statement at most. A deadlock is a cycle of waits, and
 * the fold waits on nothing: the fold's lock is tried, not awaited (a fold that finds another running leaves the
 * work to it); the ended backends' rows are taken SKIP LOCKED (a row locked by an open transaction is left for the
 * next fold); and slot 0, which it writes, is written by no one else (writers write their own pid's rows; only the
 * holder of the fold's lock writes slot 0). The one writer that can wait for it is a new backend that got the pid
 * of an ended one whose row the fold holds: it waits for this short transaction, which waits on nothing. Moving a
 * count between rows of one workflow in one transaction leaves the sum exact whatever the backends do meanwhile.
 */
export async function foldWaitingCounts(db: Knex): Promise<number> {
  return db.transaction(async (trx) => {
    const [{ mine }] = (await trx.raw('SELECT pg_try_advisory_xact_lock(?) AS mine', [FOLD_LOCK_KEY])).rows as Array<{ mine: boolean }>;
    if (!mine) return 0;
    return ((await trx.raw(FOLD_SQL)).rows as Array<{ n: number }>)[0]!.n;
  });
}
