import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/**
 * The engine's schedule: one row per run an engine must still drive (its lease and when it is due), the
 * deliveries seen (webhook signatures, Idempotency-Keys, cron ticks) and each cron workflow's next tick.
 */
export const engine = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable('engine_runs', (t) => {
      t.string('run_id', 128).primary();
      t.string('workflow', 256).notNullable();
      // When the run is to be driven next (epoch ms); null: only when woken.
      t.bigInteger('due_at');
      t.bigInteger('wake_at');
      t.string('owner', 128);
      t.bigInteger('lease_until');
      // 1 when the last claim found the previous holder's lease expired (not released).
      t.integer('expired').notNullable().defaultTo(0);
      t.string('crash_step', 300);
      t.integer('crash_count').notNullable().defaultTo(0);
      // The run's first events (JSON), journaled by whoever drives it first.
      t.text('start').notNullable();
      // The delivery keys (JSON array) recorded with the run, and when it was enqueued (epoch ms).
      t.text('dedupe_keys');
      t.bigInteger('enqueued_at');
      t.index(['due_at'], 'engine_runs_due');
    });
    await db.schema.createTable('engine_deliveries', (t) => {
      t.string('delivery_key', 300).primary();
      t.string('run_id', 128).notNullable();
      t.bigInteger('at').notNullable();
      t.index(['at'], 'engine_deliveries_at');
    });
    if (dialectOf(db).oneWriter) {
      // A run and its delivery keys in one statement (a webhook's whole write): a key seen before fails the
      // insert, run included, as one statement is atomic. One statement is one trip through the driver, where a
      // transaction of three would be five.
      await db.raw(`CREATE TRIGGER engine_runs_deliveries AFTER INSERT ON engine_runs WHEN NEW.dedupe_keys IS NOT NULL
        BEGIN
          INSERT INTO engine_deliveries (delivery_key, run_id, at) SELECT value, NEW.run_id, NEW.enqueued_at FROM json_each(NEW.dedupe_keys);
        END`);
    }
    await db.schema.createTable('engine_cron', (t) => {
      t.string('workflow', 256).primary();
      t.bigInteger('next_at').notNullable();
    });
  },
  async down(db: Knex): Promise<void> {
    for (const table of ['engine_cron', 'engine_deliveries', 'engine_runs']) await db.schema.dropTableIfExists(table);
  },
};

/**
 * The engine's guarantees under faults (CONTRACT 8.7). Fencing tokens: each claim of a run raises `fence`, and a
 * driver's journal write carries the token it was given, checked against this column in the write's transaction
 * (0: enqueued by none and never claimed). Pinned definitions: each run names the definition it started with
 * (`definition_hash`), kept in `engine_definitions` (secrets left out) for as long as the run goes on.
 */
export const engineGuarantees = {
  async up(db: Knex): Promise<void> {
    await db.schema.alterTable('engine_runs', (t) => {
      t.integer('fence').notNullable().defaultTo(0);
      t.string('definition_hash', 64);
    });
    await db.schema.createTable('engine_definitions', (t) => {
      t.string('hash', 64).primary();
      t.string('workflow', 256).notNullable();
      t.text('definition').notNullable();
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('engine_definitions');
    await db.schema.alterTable('engine_runs', (t) => {
      t.dropColumn('definition_hash');
      t.dropColumn('fence');
    });
  },
};
