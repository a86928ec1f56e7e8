import type { Knex } from 'knex';

/** Whether a knex instance (or transaction) talks to SQLite: some statements have a faster SQLite form. */
export function isSqlite(db: Knex | Knex.Transaction): boolean {
  return (db.client as { dialect?: string }).dialect === 'sqlite3';
}
