import type { Knex } from 'knex';

/**
 * The event trigger (CONTRACT 8.6): each event workflow's cursor (the next block it reads), the runs its logs
 * started (one per workflow, block hash and log index: the key that makes a log start exactly one run), and the
 * recent canonical block hashes of each network (the window the reorg check walks back through), and the open waits
 * of `wait_event` steps (the logs each waits for, from which block, until when, and the log that matched).
 */
export const eventsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('event_cursors', (t) => {
      t.string('workflow', 256).primary();
      t.string('network', 256).notNullable();
      t.bigInteger('next_block').notNullable();
      t.bigInteger('updated_at').notNullable();
    });
    await db.schema.createTable('event_log_runs', (t) => {
      t.string('workflow', 256).notNullable();
      t.string('block_hash', 66).notNullable();
      t.integer('log_index').notNullable();
      t.string('run_id', 128).notNullable();
      t.string('network', 256).notNullable();
      t.bigInteger('block_number').notNullable();
      t.string('tx_hash', 66).notNullable();
      t.primary(['workflow', 'block_hash', 'log_index']);
      t.index(['network', 'block_number'], 'event_log_runs_block');
    });
    await db.schema.createTable('event_blocks', (t) => {
      t.string('network', 256).notNullable();
      t.bigInteger('number').notNullable();
      t.string('hash', 66).notNullable();
      t.string('parent_hash', 66).notNullable();
      // The block's time, unix seconds (not named `timestamp`: a type name in PostgreSQL's SQL).
      t.bigInteger('block_time').notNullable();
      t.primary(['network', 'number']);
    });
    await db.schema.createTable('event_waits', (t) => {
      t.string('step_run_id', 300).primary();
      t.string('run_id', 128).notNullable();
      t.string('workflow', 256).notNullable();
      t.string('network', 256).notNullable();
      t.text('addresses').notNullable();
      t.text('event').notNullable();
      t.text('where_expr');
      t.integer('confirmations').notNullable();
      t.text('context').notNullable();
      t.bigInteger('next_block').notNullable();
      t.bigInteger('expires_at').notNullable();
      t.text('matched');
    });
  },
  async down(db: Knex): Promise<void> {
    for (const table of ['event_waits', 'event_blocks', 'event_log_runs', 'event_cursors']) await db.schema.dropTableIfExists(table);
  },
};
