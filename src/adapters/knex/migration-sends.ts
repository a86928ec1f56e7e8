import type { Knex } from 'knex';

/**
 * The send path's storage (CONTRACT 8.5): each relayer's nonce lane per network and the nonces reserved from it, the
 * transactions signed for sends (raw bytes, to broadcast exactly them again after a crash), and the sends in flight
 * with when to look at each next and who holds it.
 */
export const sends = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('nonce_lanes', (t) => {
      t.string('relayer', 256).notNullable();
      t.string('network', 256).notNullable();
      t.bigInteger('next_nonce').notNullable();
      t.bigInteger('synced_at').notNullable();
      t.primary(['relayer', 'network']);
    });
    await db.schema.createTable('nonce_reservations', (t) => {
      t.string('relayer', 256).notNullable();
      t.string('network', 256).notNullable();
      t.bigInteger('nonce').notNullable();
      // Null: free (given back), to be reused by the next reservation of the lane.
      t.string('send_id', 160).unique('nonce_reservations_send');
      t.bigInteger('reserved_at').notNullable();
      t.primary(['relayer', 'network', 'nonce']);
    });
    await db.schema.createTable('signed_transactions', (t) => {
      t.string('tx_hash', 66).primary();
      t.string('send_id', 160).notNullable();
      t.bigInteger('nonce').notNullable();
      t.string('purpose', 16).notNullable();
      t.text('raw').notNullable();
      t.string('from_address', 42).notNullable();
      t.string('to_address', 42).notNullable();
      t.text('value_wei').notNullable();
      t.text('data').notNullable();
      t.text('gas_limit').notNullable();
      t.text('fees').notNullable();
      t.bigInteger('signed_at').notNullable();
      t.index(['send_id', 'nonce'], 'signed_transactions_send');
    });
    await db.schema.createTable('send_watch', (t) => {
      t.string('send_id', 160).primary();
      t.string('run_id', 128).notNullable();
      t.bigInteger('due_at').notNullable();
      t.string('owner', 128);
      t.bigInteger('lease_until');
      t.index(['due_at'], 'send_watch_due');
    });
  },
  async down(db: Knex): Promise<void> {
    for (const table of ['send_watch', 'signed_transactions', 'nonce_reservations', 'nonce_lanes']) await db.schema.dropTableIfExists(table);
  },
};
