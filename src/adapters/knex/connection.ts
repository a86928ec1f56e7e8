import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { StorageError } from '../../domain/errors';
import { setLeaseClock, type LeaseClock } from './dialect';
import { migrationSource } from './migrations';
import { CachedStatementSqliteClient, retryWhileBusy } from './sqlite-client';
import { POLL_ALONE_MS, READERS, SqliteReaders, attachReaders } from './sqlite-readers';
import { reportStorageFailures, toStorageError } from './storage-failure';

/** Page cache sizes in KiB (negative: SQLite's unit for "KiB, not pages"). */
export const READER_CACHE_KIB = -8192;
export const STREAM_CACHE_KIB = -2048;
export const SERVER_CACHE_KIB = -262144;
export const WRITER_CACHE_KIB = -524288;
/** WAL pages between automatic checkpoints, and the size the WAL file is truncated back to after one (see below). */
const WAL_CHECKPOINT_PAGES = 8000;
const WAL_SIZE_LIMIT_BYTES = 64 * 1048576;
/** Memory map of a server process: reads of a journal of this size need no system call. */
const SERVER_MMAP_BYTES = 2_147_418_112;

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
 * What knex's pg client receives for `url` and a password given apart from it (`storage.password`). pg parses a
 * connection string over the fields given beside it (an absent password reads as empty and would win), so the
 * password goes into the string here, in memory only; the config file's URL never holds it. Without one, pg
 * falls back to PGPASSWORD and ~/.pgpass, as psql does.
 */
export function postgresConnection(url: string, password?: string): { connectionString: string } {
  if (password === undefined) return { connectionString: url };
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return { connectionString: u.toString() };
}

/** SQLite tuned for one writer and concurrent readers (WAL). The journal writer widens the cache during an append. */
function sqlitePragmas(profile: StorageProfile, options: OpenOptions): string[] {
  return [
    'PRAGMA journal_mode = WAL',
    'PRAGMA synchronous = NORMAL',
    `PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? BUSY_TIMEOUT_MS))}`,
    `PRAGMA cache_size = ${profile === 'server' ? SERVER_CACHE_KIB : profile === 'stream' ? STREAM_CACHE_KIB : READER_CACHE_KIB}`,
    'PRAGMA temp_store = MEMORY',
    // A checkpoint every 8,000 WAL pages (32 MiB) rather than SQLite's 1,000: the engine's and the ledger's many small
    // commits rewrite the same hot pages (rollups, index tails), and a checkpoint (two fsyncs) was a third of a
    // ledger append's COMMIT. Durability is the WAL's either way; after a checkpoint the WAL file is cut back to 64 MiB.
    `PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`,
    `PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`,
    `PRAGMA mmap_size = ${profile === 'server' ? SERVER_MMAP_BYTES : 0}`,
  ];
}

export { isSqlite } from './dialect';

/**
 * Opens the storage named by `url` (`sqlite:<absolute path>` or `postgres://…`) and brings its schema up
 * to date through the knex migrations. The SQLite file and its folder are created on first use.
 */
export async function openDatabase(url: string, profile: StorageProfile = 'tool', options: OpenOptions = {}): Promise<Knex> {
  let db: Knex;
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    db = knexFactory({
      client: CachedStatementSqliteClient as unknown as typeof knexFactory.Client,
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { exec(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) => {
          // WAL mode cannot be asked for while an import loads an empty database through a rollback journal (see
          // sqlite-bulk-load.ts): SQLite refuses at once, so the opening waits for it as a write would.
          const pragmas = sqlitePragmas(profile, options).join(';');
          retryWhileBusy(() => new Promise<void>((resolve, reject) => conn.exec(pragmas, (err) => (err ? reject(err) : resolve()))))
            .then(() => done(null, conn), (err: Error) => done(err, conn));
        },
      },
    });
  } else if (/^postgres(ql)?:\/\//.test(url)) {
    db = knexFactory({ client: 'pg', connection: postgresConnection(url, options.password), pool: { min: 0, max: 10 } });
    setLeaseClock(db, options.leaseClock ?? 'database');
  } else {
    throw new StorageError('opening the database (storage.url)', 'unsupported storage url (expected sqlite:PATH or postgres://…)');
  }
  reportStorageFailures(db);
  try {
    await db.migrate.latest({ migrationSource });
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw toStorageError(err, 'opening the database (storage.url)');
  }
  // Reads of the history lists go to their own connections (see SqliteReaders); an in-memory database is one
  // connection's alone, so it has none.
  const filename = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;
  if (filename && filename !== ':memory:' && !filename.startsWith('file:')) {
    // Each reader keeps a page cache of its own: a quarter of the process's, so that all of them together stay
    // within it (the memory map is shared).
    const pragmas = sqlitePragmas(profile, options).filter((p) => !/journal_mode|synchronous/.test(p))
      .map((p) => (p.startsWith('PRAGMA cache_size') ? `PRAGMA cache_size = ${Math.round((profile === 'server' ? SERVER_CACHE_KIB : READER_CACHE_KIB) / READERS)}` : p));
    // The server polls for a read that runs alone (see SqliteReaders.select); a command does not: an export's reads
    // are long, and a polling loop would take a CPU from its readers and its file writes.
    attachReaders(db, new SqliteReaders(filename, pragmas, READERS, profile === 'server' ? POLL_ALONE_MS : 0));
  }
  return db;
}
