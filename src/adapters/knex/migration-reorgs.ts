import type { Knex } from 'knex';

/**
 * Reorgs answered (CONTRACT 8.6): a log run a reorg removed is marked with the reorg's response (so a second roll
 * back, by another process or after a crash, finds it answered), and each response waits in `reorg_responses` until
 * it is journaled: recorded in the transaction that moves the cursors back, so none is lost or made twice.
 */
export const reorgsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('event_log_runs', (t) => {
      t.string('reorg_id', 128);
    });
    // The projection's reorg responses keep the depth (CONTRACT 4's reorg response item).
    await db.schema.alterTable('reorgs', (t) => {
      t.integer('depth');
    });
    await db.schema.createTable('reorg_responses', (t) => {
      t.string('reorg_id', 128).primary();
      t.string('run_id', 128).notNullable();
      t.string('workflow', 256).notNullable();
      t.string('network', 256).notNullable();
      t.bigInteger('block').notNullable();
      t.string('removed_block_hash', 66).notNullable();
      t.integer('depth').notNullable();
      t.bigInteger('created_at').notNullable();
      // Null until the response is journaled.
      t.bigInteger('journaled_at');
      t.index(['network', 'journaled_at'], 'reorg_responses_pending');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('reorg_responses');
    await db.schema.alterTable('reorgs', (t) => {
      t.dropColumn('depth');
    });
    await db.schema.alterTable('event_log_runs', (t) => {
      t.dropColumn('reorg_id');
    });
  },
};
