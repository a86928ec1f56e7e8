import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/**
 * A freshly created (empty) table in the database's fastest form for it: on SQLite WITHOUT ROWID, clustered on its
 * primary key (one B-tree instead of a rowid table plus a key index); other databases keep the table as created.
 */
export async function withoutRowid(db: Knex, table: string): Promise<void> {
  await dialectOf(db).clusterOnKey(db, table);
}
