import type { Knex } from 'knex';
import { useDialect, type LeaseClock, type StoreDialect } from './dialect';
import { migrationSource } from './migrations';
import { reportStorageFailures, toStorageError } from './storage-failure';

/** Page cache sizes in KiB (negative: SQLite's unit for "KiB, not pages"). */
export const READER_CACHE_KIB = -8192;
export const STREAM_CACHE_KIB = -2048;
export const SERVER_CACHE_KIB = -262144;
export const WRITER_CACHE_KIB = -524288;

/**
 * How a process reads the database. `server`: long-lived, answering random page reads: a large cache and a
 * memory map (reads without a system call). `tool` (the default): one-shot commands and exports, which read
 * much once: a modest cache and no map, so that their memory stays small whatever the journal's size. `stream`: a
 * command that reads the whole journal once, in key order (an export): the smallest cache that keeps the top of
 * the indexes it seeks through, since no page it reads is wanted twice.
 */
export type StorageProfile = 'server' | 'tool' | 'stream';

/** How long a statement waits for a lock another process holds before SQLITE_BUSY (transactions then try again). */
export const BUSY_TIMEOUT_MS = 10_000;

export interface OpenOptions {
  /** See BUSY_TIMEOUT_MS (tests shorten it). */
  readonly busyTimeoutMs?: number;
  /** PostgreSQL: where lease times come from (see LeaseClock); default the database's clock. */
  readonly leaseClock?: LeaseClock;
  /** PostgreSQL: the role's password (`storage.password`), given apart from the URL. */
  readonly password?: string;
}

/**
 * Gives a database just opened its dialect and brings its schema up to date through the knex migrations (each
 * technology's opener, adapters/sqlite and adapters/postgres, makes the knex instance; this is what they share).
 */
export async function migrateOpened(db: Knex, dialect: StoreDialect): Promise<Knex> {
  useDialect(db, dialect);
  reportStorageFailures(db);
  try {
    await db.migrate.latest({ migrationSource });
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw toStorageError(err, 'opening the database (storage.url)');
  }
  return db;
}
