import type { Knex } from 'knex';

/**
 * The operator audit trail of relayer top-ups: one row per attempt, never removed. `amount_wei` is TEXT (exact
 * decimal wei). Each filter of the trail has an index (filter, at, topup_id), as the history lists do.
 */
export const relayerTopups = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('relayer_topups', (t) => {
      t.string('topup_id', 128).primary();
      t.bigInteger('at').notNullable();
      t.string('by', 128).notNullable();
      t.string('from_relayer').notNullable();
      t.string('from_address', 42).notNullable();
      t.string('to_relayer').notNullable();
      t.string('to_address', 42).notNullable();
      t.string('network').notNullable();
      t.bigInteger('chain_id').notNullable();
      t.text('amount_wei').notNullable();
      t.string('tx_hash', 66);
      t.string('outcome', 16).notNullable();
      t.text('error');
      t.index(['at', 'topup_id'], 'relayer_topups_page');
      for (const column of ['from_relayer', 'to_relayer', 'network', 'outcome', 'by']) {
        t.index([column, 'at', 'topup_id'], `relayer_topups_by_${column}`);
      }
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('relayer_topups');
  },
};
