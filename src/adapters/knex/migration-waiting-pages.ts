import type { Knex } from 'knex';

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
