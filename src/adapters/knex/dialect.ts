import type { Knex } from 'knex';
import { SqliteWriteSession } from './sqlite-session';

/** Whether a knex instance (or transaction, or a SQLite write session) talks to SQLite: some statements have a faster SQLite form. */
export function isSqlite(db: Knex | Knex.Transaction | SqliteWriteSession): boolean {
  return db instanceof SqliteWriteSession || (db.client as { dialect?: string }).dialect === 'sqlite3';
}
