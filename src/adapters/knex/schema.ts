import type { Knex } from 'knex';
import { isSqlite } from './dialect';

/**
 * On SQLite, rebuilds a freshly created (empty) table as WITHOUT ROWID, clustered on its primary key: one
 * B-tree instead of a rowid table plus a key index, which makes appends and key lookups cheaper.
 * Other databases keep the table as created.
 */
export async function withoutRowid(db: Knex, table: string): Promise<void> {
  if (!isSqlite(db)) return;
  const row = (await db.raw(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [table])) as { sql: string }[];
  const indexes = (await db.raw(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, [table])) as { sql: string }[];
  await db.raw(`DROP TABLE ${table}`);
  await db.raw(`${row[0]!.sql} WITHOUT ROWID`);
  for (const index of indexes) await db.raw(index.sql);
}
