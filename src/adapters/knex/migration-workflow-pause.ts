import type { Knex } from 'knex';

/**
 * `workflow_states.paused` may be null: the journal never said (the log poller's first `workflow.state` carries only
 * the blocks), so the config's `paused` holds. A NOT NULL column made that first word an unpause.
 */
export const workflowPauseMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('workflow_states', (t) => {
      t.boolean('paused').nullable().alter();
    });
  },
  async down(db: Knex): Promise<void> {
    await db('workflow_states').whereNull('paused').update({ paused: false });
    await db.schema.alterTable('workflow_states', (t) => {
      t.boolean('paused').notNullable().alter();
    });
  },
};
