import type { Knex } from 'knex';

/**
 * Rebuilds a freshly created (empty) table as WITHOUT ROWID, clustered on its primary key: one B-tree instead of a
 * rowid table plus a key index, which makes appends and key lookups cheaper.
 */
export async function withoutRowid(db: Knex, table: string): Promise<void> {
  const row = (await db.raw(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [table])) as { sql: string }[];
  const indexes = (await db.raw(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`, [table])) as { sql: string }[];
  await db.raw(`DROP TABLE ${table}`);
  await db.raw(`${row[0]!.sql} WITHOUT ROWID`);
  for (const index of indexes) await db.raw(index.sql);
}

/**
 * `table` made again by `columns` (and `item`, when given, as a stored generated column), with its rows, indexes and
 * triggers: SQLite adds a stored generated column only to a new table, so the stored-item migrations (0010, 0012,
 * 0014) copy each table's rows in their order into a new one, and make its indexes and triggers again from their SQL.
 */
export async function rebuildWithItem(db: Knex, table: string, columns: (t: Knex.CreateTableBuilder) => void, names: readonly string[], item?: string): Promise<void> {
  const schema = (await db.raw(`SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL`, [table])) as Array<{ sql: string }>;
  const rebuilt = `${table}_rebuilt`;
  await db.schema.createTable(rebuilt, (t) => {
    columns(t);
    if (item) t.specificType('item', `text GENERATED ALWAYS AS (${item}) STORED`);
  });
  const list = names.map((c) => `"${c}"`).join(', ');
  await db.raw(`INSERT INTO ${rebuilt} (${list}) SELECT ${list} FROM ${table} ORDER BY rowid`);
  // Its indexes and triggers go with it, to be made again on the new table once it has the name.
  await db.schema.dropTable(table);
  await db.raw(`ALTER TABLE ${rebuilt} RENAME TO ${table}`);
  for (const { sql } of schema) await db.raw(sql);
}
