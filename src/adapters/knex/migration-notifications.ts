import type { Knex } from 'knex';

/**
 * The notifications outbox (CONTRACT 11): one row per delivery, kept until delivered or given up. `claimed_by` /
 * `claimed_until` let one process at a time attempt a row; a claim left by a dead process runs out.
 */
export const notificationsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('notifications', (t) => {
      t.string('id', 64).primary();
      t.string('channel', 128).notNullable();
      t.string('type', 32).notNullable();
      t.string('run_id', 128);
      t.string('workflow', 128);
      t.bigInteger('at').notNullable();
      t.text('data').notNullable();
      t.string('status', 16).notNullable();
      t.integer('attempts').notNullable();
      t.text('last_error');
      t.bigInteger('created_at').notNullable();
      t.bigInteger('next_at').notNullable();
      t.string('claimed_by', 128);
      t.bigInteger('claimed_until');
      t.index(['status', 'next_at'], 'notifications_due');
      t.index(['created_at', 'id'], 'notifications_page');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('notifications');
  },
};
