import knexFactory, { type Knex } from 'knex';
import { attachStatementReaders, migrateOpened, setLeaseClock, type OpenOptions, type StorageProfile } from '../knex';
import { PgReaders } from './pg-readers';
import { postgresDialect } from './postgres-dialect';
import { FOLD_INTERVAL_MS, foldWaitingCounts } from './pg-waiting-fold';

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

/**
 * Opens the PostgreSQL database of `url` (a pool of up to ten connections) and brings its schema up to date; then
 * folds the waiting counts of ended backends (migration 0026), now and every minute while it is open, off any
 * request's path.
 */
export async function openPostgres(url: string, profile: StorageProfile = 'tool', options: OpenOptions = {}): Promise<Knex> {
  const db = knexFactory({ client: 'pg', connection: postgresConnection(url, options.password), pool: { min: 0, max: 10 } });
  setLeaseClock(db, options.leaseClock ?? 'database');
  // The history lists read each page as one prepared statement (see PgReaders), on a server polled for and on a
  // connection of the readers' own.
  attachStatementReaders(db, new PgReaders(db.client as ConstructorParameters<typeof PgReaders>[0], profile === 'server'));
  await migrateOpened(db, postgresDialect);
  await foldWaitingCounts(db);
  keepFolding(db);
  return db;
}

function keepFolding(db: Knex): void {
  const timer = setInterval(() => {
    // Destroyed: knex drops its pool.
    if (!(db.client as { pool?: unknown }).pool) {
      clearInterval(timer);
      return;
    }
    // A fold that fails (the database away for a moment) changes nothing: the counts stay exact, the next one folds.
    foldWaitingCounts(db).catch(() => undefined);
  }, FOLD_INTERVAL_MS);
  timer.unref();
}
