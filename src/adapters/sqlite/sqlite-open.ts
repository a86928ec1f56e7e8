import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import {
  attachReaders, BUSY_TIMEOUT_MS, migrateOpened, POLL_ALONE_MS, READER_CACHE_KIB, SERVER_CACHE_KIB, STREAM_CACHE_KIB, type OpenOptions, type StorageProfile,
} from '../knex';
import { CachedStatementSqliteClient, retryWhileBusy } from './sqlite-client';
import { sqliteDialect } from './sqlite-dialect';
import { READERS, SqliteReaders } from './sqlite-readers';

/** WAL pages between automatic checkpoints, and the size the WAL file is truncated back to after one (see below). */
const WAL_CHECKPOINT_PAGES = 8000;
const WAL_SIZE_LIMIT_BYTES = 64 * 1048576;
/** Memory map of a server process: reads of a journal of this size need no system call. */
const SERVER_MMAP_BYTES = 2_147_418_112;


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

/**
 * Opens the SQLite file `filename` (created with its folder on first use, `:memory:` for a database of one
 * connection) and brings its schema up to date.
 */
export async function openSqlite(filename: string, profile: StorageProfile = 'tool', options: OpenOptions = {}): Promise<Knex> {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const db = knexFactory({
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
  await migrateOpened(db, sqliteDialect);
  // Reads of the history lists go to their own connections (see SqliteReaders); an in-memory database is one
  // connection's alone, so it has none.
  if (filename !== ':memory:' && !filename.startsWith('file:')) {
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
