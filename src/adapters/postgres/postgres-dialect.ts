import type { Knex } from 'knex';
import { STORED_JSON, storedJsonFunctions, type StoreDialect } from '../knex';
import { PgWriteBatch } from './pg-write-batch';

/** PostgreSQL's clock in epoch milliseconds (clock_timestamp: the moment the expression runs, not the transaction's start). */
const PG_NOW_MS = 'CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)';

/**
 * PostgreSQL: several processes write at once, so the database decides (unique keys, row locks, SKIP LOCKED claims,
 * its own clock for leases, CONTRACT 10); list items are generated columns (migration 0025), other rows are read
 * whole; wei is NUMERIC(78,0).
 */
export const postgresDialect: StoreDialect = {
  kind: 'postgres',
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  forUpdate: ' FOR UPDATE',
  forShare: ' FOR SHARE',
  clockSql: PG_NOW_MS,
  oneWriter: false,
  storedItems: false,
  generatedItems: {
    add: async (db, items, column = 'item') => {
      for (const sql of storedJsonFunctions()) await db.raw(sql);
      for (const { table, item } of items) await db.raw(`ALTER TABLE ${table} ADD COLUMN ${column} text GENERATED ALWAYS AS (${item}) STORED`);
    },
    drop: async (db, tables, column = 'item') => {
      for (const table of tables) await db.raw(`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}`);
      for (const type of ['text', 'bigint']) await db.raw(`DROP FUNCTION IF EXISTS ${STORED_JSON}(${type})`);
    },
  },
  pagesPlannedOnce: true,
  partialIndexKeys: false,
  jsonInserts: false,
  wei: 'numeric',
  mergeCounts: (held, added) => `(SELECT coalesce(jsonb_object_agg(k, n), '{}'::jsonb)::text FROM (SELECT key AS k, sum(value::bigint) AS n FROM (
      SELECT key, value FROM jsonb_each_text(${held}::jsonb) UNION ALL SELECT key, value FROM jsonb_each_text(${added}::jsonb)) AS both_sides GROUP BY key) AS merged)`,
  modifyingCte: true,
  streamKeys: (stream) => `(SELECT coalesce(json_agg(json_build_array(seq, hash)), '[]')::text FROM events WHERE events.stream = ${stream})`,
  bulkUpdate: (table, columns, key) => `UPDATE ${table} SET ${columns.map((c) => `"${c}" = v."${c}"`).join(', ')}
      FROM json_populate_recordset(NULL::${table}, ?) AS v WHERE ${table}."${key}" = v."${key}"`,
  deferWrites: (trx) => new PgWriteBatch(trx, postgresDialect),
  writeSessions: undefined,
  guardedWrite: undefined,
  select: async (db: Knex, sql: string, bindings: readonly unknown[]) => ((await db.raw(sql, bindings as Knex.RawBinding[])) as { rows: Record<string, unknown>[] }).rows,
  clusterOnKey: async () => undefined,
  rebuildWithItem: async () => {
    throw new Error('PostgreSQL keeps no stored items (storedItems is false)');
  },
};
