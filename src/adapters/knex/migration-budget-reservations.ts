import type { Knex } from 'knex';

/**
 * Migration 0013: the value caps' reservations, one row per (send, budget, token; '' for native value), written in
 * the same transaction as the check that allowed them (KnexBudgetReservations). `budget_token_grants` (0004) is left
 * as it is: old databases keep it, nothing reads it any more.
 */
export const budgetReservationsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('budget_reservations', (t) => {
      t.string('send_id', 128).notNullable();
      t.string('budget').notNullable();
      t.string('token', 128).notNullable();
      t.text('amount').notNullable();
      t.bigInteger('reserved_at').notNullable();
      t.primary(['send_id', 'budget', 'token']);
      t.index(['budget', 'token', 'reserved_at'], 'budget_reservations_by_cap');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('budget_reservations');
  },
};
