import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/** The partial indexes of the waiting list (migration 0002): the runs parked now, by (filter, parked_at, run_id). */
const WAITING_INDEXES = [
  ['runs_waiting_status_parked_at_run_id', 'status'],
  ['runs_waiting_workflow_parked_at_run_id', 'workflow'],
  ['runs_waiting_wait_kind_parked_at_run_id', 'wait_kind'],
] as const;

/** The rest of what a waiting run's item is made of (WAITING_LINE): in the index, no page reads a run's row. */
const ITEM_COLUMNS = ['workflow', 'wait_kind', 'wait_step_run_id', 'due_at', 'expires_at'];

/**
 * Migration 0011: the waiting list's indexes hold every column its page renders, so that a page reads its 50 runs
 * from the index alone. Before, each run was a lookup in `runs`, cheap when the runs parked last sit side by side in
 * the table and twice the page's SQL when they are spread over it (one workflow's, docs/benchmarks.md). The runs
 * parked at a time are few, so the indexes stay small.
 */
export const waitingPagesMigration = {
  async up(db: Knex): Promise<void> {
    for (const [name, filter] of WAITING_INDEXES) {
      const rest = ITEM_COLUMNS.filter((c) => c !== filter);
      await recreate(db, name, [filter, 'parked_at', 'run_id', ...rest]);
    }
  },
  async down(db: Knex): Promise<void> {
    for (const [name, filter] of WAITING_INDEXES) await recreate(db, name, [filter, 'parked_at', 'run_id']);
  },
};

async function recreate(db: Knex, name: string, columns: readonly string[]): Promise<void> {
  await db.raw(`DROP INDEX IF EXISTS ${name}`);
  await db.raw(`CREATE INDEX ${name} ON runs (${columns.join(', ')}) WHERE status = 'waiting'`);
}

/** Migration 0028's index of the unfiltered waiting page: the runs parked now by (parked_at, run_id), then the rest. */
const PARKED_INDEX = 'runs_waiting_parked_at_run_id';

/**
 * Migration 0028, on PostgreSQL: the unfiltered waiting page's index leads with (parked_at, run_id), not `status`. Its
 * one value ('waiting') is the index's own condition, and PostgreSQL leaves a condition the index's predicate implies
 * out of its search (dialect.partialIndexKeys): with no value for the first column, a deep page's cursor could not
 * position the scan, which read every waiting run newer than the cursor to find the page. SQLite keeps the index of
 * 0011, which it searches by `status` and the cursor (without statistics, it would sort another index's rows rather
 * than walk a partial index led by a range).
 */
export const waitingCursorMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).partialIndexKeys) return;
    await db.raw('DROP INDEX IF EXISTS runs_waiting_status_parked_at_run_id');
    await db.raw(`CREATE INDEX ${PARKED_INDEX} ON runs (parked_at, run_id, ${ITEM_COLUMNS.join(', ')}) WHERE status = 'waiting'`);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).partialIndexKeys) return;
    await db.raw(`DROP INDEX IF EXISTS ${PARKED_INDEX}`);
    await recreate(db, 'runs_waiting_status_parked_at_run_id', ['status', 'parked_at', 'run_id', ...ITEM_COLUMNS]);
  },
};
