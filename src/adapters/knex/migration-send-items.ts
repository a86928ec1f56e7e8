import type { Knex } from 'knex';
import { isSqlite } from './dialect';
import { SEND_COLUMNS, sendItemPieces } from './rows';

/**
 * The columns of `sends` (CONTRACT section 4's send attempts, one row per send), as migration 0001 made them and as
 * 0010 makes them again when it rebuilds the table.
 */
export function sendsColumns(t: Knex.CreateTableBuilder): void {
  t.string('send_id', 128).primary();
  t.string('run_id', 128).notNullable();
  t.string('step_run_id', 128).notNullable();
  t.string('workflow').notNullable();
  t.string('session', 8).notNullable();
  t.string('network').notNullable();
  t.bigInteger('chain_id').notNullable();
  t.string('relayer').notNullable();
  t.string('status', 16).notNullable();
  t.string('outcome', 16);
  t.string('tx_hash');
  t.string('idempotency_key').notNullable();
  t.string('to_address').notNullable();
  t.text('value_wei').notNullable();
  t.text('receipt');
  t.bigInteger('created_at').notNullable();
  t.bigInteger('updated_at').notNullable();
}

/**
 * The send's item (SendAttemptItem) as SQLite renders it from the row, kept in the row (`item`, a stored generated
 * column): its members up to `"explorer_url":`, a tab where the link goes (configuration, so never stored), then `to`
 * and `value_wei`, without the times and the closing brace (see sendItemOfStored). SQLite computes it on every insert
 * and update of the row, in the same statement, so no writer can leave it stale.
 */
const SEND_ITEM = ((): string => {
  const { head, middle } = sendItemPieces('');
  return `concat(${head}, ',"explorer_url":', char(9), ${middle})`;
})();

/**
 * Migration 0010, on a SQLite file: `sends` rebuilt with the stored `item` (SQLite adds a stored generated column only
 * to a new table), its rows copied in their order, its indexes made again as they were. The history's txs pages and
 * the export read the item instead of rendering fourteen values a row (docs/benchmarks.md, issue #14's ninth pass).
 * Elsewhere nothing changes: those pages are rendered in JavaScript there.
 */
export const sendItemsMigration = {
  async up(db: Knex): Promise<void> {
    if (isSqlite(db)) await rebuildSends(db, true);
  },
  async down(db: Knex): Promise<void> {
    if (isSqlite(db)) await rebuildSends(db, false);
  },
};

async function rebuildSends(db: Knex, withItem: boolean): Promise<void> {
  const indexes = (await db.raw(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sends' AND sql IS NOT NULL`)) as Array<{ sql: string }>;
  await db.schema.createTable('sends_rebuilt', (t) => {
    sendsColumns(t);
    if (withItem) t.specificType('item', `text GENERATED ALWAYS AS (${SEND_ITEM}) STORED`);
  });
  const columns = SEND_COLUMNS.map((c) => `"${c}"`).join(', ');
  await db.raw(`INSERT INTO sends_rebuilt (${columns}) SELECT ${columns} FROM sends ORDER BY rowid`);
  await db.schema.dropTable('sends');
  await db.raw('ALTER TABLE sends_rebuilt RENAME TO sends');
  for (const { sql } of indexes) await db.raw(sql);
}
