import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { migrationSource } from './migrations';

/** Page cache sizes in KiB (negative: SQLite's unit for "KiB, not pages"). */
export const READER_CACHE_KIB = -32768;
export const WRITER_CACHE_KIB = -524288;

/**
 * SQLite tuned for one writer and concurrent readers (WAL). Readers keep a modest page cache and no memory
 * map, so that a process reading the whole journal (an export) stays small; the journal writer widens the
 * cache for the length of an append (`WRITER_CACHE_PRAGMA`), where index updates need it.
 */
const SQLITE_PRAGMAS = [
  'PRAGMA journal_mode = WAL',
  'PRAGMA synchronous = NORMAL',
  'PRAGMA busy_timeout = 10000',
  `PRAGMA cache_size = ${READER_CACHE_KIB}`,
  'PRAGMA temp_store = MEMORY',
];

export function isSqlite(db: Knex): boolean {
  return db.client.config.client === 'sqlite3';
}

/**
 * Opens the storage named by `url` (`sqlite:<absolute path>` or `postgres://…`) and brings its schema up
 * to date through the knex migrations. The SQLite file and its folder are created on first use.
 */
export async function openDatabase(url: string): Promise<Knex> {
  let db: Knex;
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    db = knexFactory({
      client: 'sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { exec(sql: string, cb: (err: Error | null) => void): void }, done: (err: Error | null, conn: unknown) => void) => {
          conn.exec(SQLITE_PRAGMAS.join(';'), (err) => done(err, conn));
        },
      },
    });
  } else if (/^postgres(ql)?:\/\//.test(url)) {
    db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 10 } });
  } else {
    throw new Error(`unsupported storage url (expected sqlite:PATH or postgres://…)`);
  }
  await db.migrate.latest({ migrationSource });
  return db;
}
