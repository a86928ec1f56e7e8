/** Storage by technology, chosen by the storage url: the opener and the SQLite to PostgreSQL copy. */
export type { OpenOptions, StorageProfile } from '../knex';
export { openDatabase } from './open-database';
export { openPostgresCopyTarget, openSqliteCopySource } from './storage-copy';
