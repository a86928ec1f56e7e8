import type { Knex } from 'knex';

/** Named, revocable bearers: only the SHA-256 of each token is stored. */
export const bearers = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('bearers', (t) => {
      t.string('name', 128).primary();
      t.string('token_hash', 64).notNullable().unique('bearers_token_hash');
      t.bigInteger('created_at').notNullable();
      t.bigInteger('last_used_at');
      t.bigInteger('revoked_at');
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('bearers');
  },
};
