import type { Knex } from 'knex';

/**
 * Sends and the spend ledger under a reorg (CONTRACT 8.6). A landed send keeps its receipt's block (number, hash) in
 * `send_receipt_blocks` and on its ledger entry, so that a roll back finds the sends and entries of the blocks it removed. A ledger
 * entry whose block was removed stays (append-only) but stops counting: `reorged_at` is the time of the roll back, 0
 * while the entry counts. It is part of the entry's key, so that the transaction landing again writes a new entry
 * with the same (step_run_id, tx_hash) beside the reorged one, while a repeated settle still finds its entry. A send a
 * roll back reopened waits in `send_reorgs` until the journal says so (`send.submitted` with `reorged`).
 */
export const reorgedSendsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('spend_entries', (t) => {
      t.bigInteger('block_number');
      t.string('block_hash', 66);
      t.bigInteger('reorged_at').notNullable().defaultTo(0);
    });
    await db.schema.alterTable('spend_entries', (t) => {
      t.dropUnique(['step_run_id', 'tx_hash'], 'spend_entries_key');
    });
    await db.schema.alterTable('spend_entries', (t) => {
      t.unique(['step_run_id', 'tx_hash', 'reorged_at'], { indexName: 'spend_entries_key' });
      t.index(['network', 'block_number'], 'spend_entries_block');
    });
    // Beside `sends`, not in it: SQLite's `sends` is made again by older migrations' downs, with their columns.
    await db.schema.createTable('send_receipt_blocks', (t) => {
      t.string('send_id', 128).primary();
      t.string('network', 256).notNullable();
      t.bigInteger('block_number').notNullable();
      t.string('block_hash', 66).notNullable();
      t.index(['network', 'block_number'], 'send_receipt_blocks_number');
    });
    await db.schema.createTable('send_reorgs', (t) => {
      t.string('send_id', 128).notNullable();
      t.string('removed_block_hash', 66).notNullable();
      t.string('run_id', 128).notNullable();
      t.string('network', 256).notNullable();
      t.string('tx_hash', 128).notNullable();
      t.bigInteger('block').notNullable();
      t.bigInteger('created_at').notNullable();
      // Null until the send's reopening is journaled.
      t.bigInteger('journaled_at');
      t.primary(['send_id', 'removed_block_hash']);
      t.index(['network', 'journaled_at'], 'send_reorgs_pending');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('send_reorgs');
    await db.schema.dropTableIfExists('send_receipt_blocks');
    // One change per statement: on SQLite knex drops a column by building the table again, with the indexes it has then.
    await db.schema.alterTable('spend_entries', (t) => t.dropIndex(['network', 'block_number'], 'spend_entries_block'));
    await db.schema.alterTable('spend_entries', (t) => t.dropUnique(['step_run_id', 'tx_hash', 'reorged_at'], 'spend_entries_key'));
    await db.schema.alterTable('spend_entries', (t) => t.unique(['step_run_id', 'tx_hash'], { indexName: 'spend_entries_key' }));
    await db.schema.alterTable('spend_entries', (t) => {
      t.dropColumn('block_number');
      t.dropColumn('block_hash');
      t.dropColumn('reorged_at');
    });
  },
};
