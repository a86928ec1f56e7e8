import type { Knex } from 'knex';

/**
 * The runs list filtered by `session_id` (a replay or test session's runs, the replays view's link; and the engine's
 * look for a session's runs still going when one ends): one index range on (session_id, created_at, run_id), as the
 * other run filters (RUN_FILTER_COLUMNS).
 */
export const sessionRunsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('runs', (t) => t.index(['session_id', 'created_at', 'run_id'], 'runs_by_session_id'));
  },
  async down(db: Knex): Promise<void> {
    await db.schema.alterTable('runs', (t) => t.dropIndex([], 'runs_by_session_id'));
  },
};
