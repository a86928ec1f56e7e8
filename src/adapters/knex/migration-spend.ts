import type { Knex } from 'knex';
import { withoutRowid } from './schema';
import { LIMB_COLUMNS } from './spend-limbs';

/**
 * The spend ledger (append-only entries keyed by (step_run_id, tx_hash)), its rollups (exact sums per
 * workflow, relayer, network and hour or day, kept up to date on append) and the receipt reads still owed.
 * Amounts are TEXT (exact decimal wei); rollups hold them as 32-bit limbs so that SQL sums stay exact.
 */
export const spend = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('spend_entries', (t) => {
      t.increments('id').primary();
      t.string('step_run_id', 128).notNullable();
      t.string('tx_hash', 128).notNullable();
      t.bigInteger('recorded_at').notNullable();
      t.string('workflow').notNullable();
      t.string('run_id', 128).notNullable();
      t.string('relayer').notNullable();
      t.string('network').notNullable();
      t.bigInteger('chain_id').notNullable();
      t.text('gas_used').notNullable();
      t.text('effective_gas_price').notNullable();
      t.text('gas_spend_wei').notNullable();
      t.text('value_wei').notNullable();
      t.boolean('reverted').notNullable();
      t.unique(['step_run_id', 'tx_hash'], { indexName: 'spend_entries_key' });
      t.index(['recorded_at', 'id'], 'spend_entries_time');
      t.index(['workflow', 'recorded_at', 'id'], 'spend_entries_workflow');
      t.index(['relayer', 'recorded_at', 'id'], 'spend_entries_relayer');
    });
    await db.schema.createTable('spend_rollups', (t) => {
      t.string('grain', 1).notNullable();
      t.bigInteger('bucket').notNullable();
      t.string('workflow').notNullable();
      t.string('relayer').notNullable();
      t.string('network').notNullable();
      t.bigInteger('tx_count').notNullable();
      t.bigInteger('reverted_count').notNullable();
      for (const column of LIMB_COLUMNS) t.bigInteger(column).notNullable();
      t.primary(['grain', 'bucket', 'workflow', 'relayer', 'network']);
    });
    await withoutRowid(db, 'spend_rollups');
    // A filtered summary or a budget's scope seeks its names instead of reading every combination of a bucket.
    // New rollup rows only: adding to an existing row's sums does not touch these.
    for (const column of ['workflow', 'relayer', 'network']) {
      await db.schema.alterTable('spend_rollups', (t) => t.index(['grain', column, 'bucket'], `spend_rollups_${column}`));
    }
    await db.schema.createTable('spend_pending', (t) => {
      t.string('step_run_id', 128).notNullable();
      t.string('tx_hash', 128).notNullable();
      t.bigInteger('recorded_at').notNullable();
      t.text('body').notNullable();
      t.string('state', 8).notNullable();
      t.text('error');
      t.primary(['step_run_id', 'tx_hash']);
      t.index(['state', 'recorded_at'], 'spend_pending_state');
    });
    await db.schema.createTable('budget_token_grants', (t) => {
      t.string('budget').notNullable();
      t.string('token', 128).notNullable();
      t.string('step_run_id', 128).notNullable();
      t.text('amount').notNullable();
      t.bigInteger('granted_at').notNullable();
      t.primary(['budget', 'token', 'step_run_id', 'granted_at']);
      t.index(['budget', 'token', 'granted_at'], 'budget_token_grants_time');
    });
  },
  async down(db: Knex): Promise<void> {
    for (const table of ['budget_token_grants', 'spend_pending', 'spend_rollups', 'spend_entries']) await db.schema.dropTableIfExists(table);
  },
};
