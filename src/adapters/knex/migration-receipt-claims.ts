import type { Knex } from 'knex';

/**
 * A receipt read owed to the spend ledger is claimed by one process's drain at a time (CONTRACT 10): who holds it and
 * until when (epoch ms; the database's clock on PostgreSQL). Nullable: a read nobody holds.
 */
export const receiptClaimsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('spend_pending', (t) => {
      t.string('claimed_by', 128);
      t.bigInteger('claimed_until');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.alterTable('spend_pending', (t) => {
      t.dropColumn('claimed_by');
      t.dropColumn('claimed_until');
    });
  },
};
