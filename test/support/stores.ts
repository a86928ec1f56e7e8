/**
 * Test support: the two stores the knex adapters run on, each as a fresh empty database a test can open as many
 * times as it needs (two openings: two connections, as two processes sharing the database would have).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { openDatabase, type OpenOptions } from '../../src/adapters/storage';
import { freshPostgres, type FreshPostgres } from './postgres';

export interface FreshStore {
  /** The storage url (`sqlite:…` or `postgres://…`) of an empty, migrated database of this test's own. */
  readonly url: string;
  /** openDatabase(url): each call is another pool of connections, closed by `close`. */
  open(options?: OpenOptions): Promise<Knex>;
  /** Destroys every opened pool and removes the database. */
  close(): Promise<void>;
}

function tracking(url: string, remove: () => Promise<void>): FreshStore {
  const opened: Knex[] = [];
  return {
    url,
    open: async (options) => {
      const db = await openDatabase(url, 'tool', options);
      opened.push(db);
      return db;
    },
    close: async () => {
      await Promise.all(opened.map((db) => db.destroy()));
      await remove();
    },
  };
}

export async function freshSqliteStore(): Promise<FreshStore> {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-store-'));
  return tracking(`sqlite:${join(dir, 'journal.db')}`, async () => rmSync(dir, { recursive: true, force: true }));
}

export async function freshPostgresStore(): Promise<FreshStore> {
  const fresh = await freshPostgres();
  return tracking(fresh.url, fresh.drop);
}

/** For describe.each: every store the knex adapters support, by name. */
export const KNEX_STORES: ReadonlyArray<readonly [string, () => Promise<FreshStore>]> = [
  ['SQLite', freshSqliteStore],
  ['PostgreSQL', freshPostgresStore],
];

/** Adapters made over a fresh store, and `reopen`: the pool closed and opened again, as a restarted process sees it. */
export async function reopenable<T>(fresh: FreshStore, make: (db: Knex) => T): Promise<{ first: T; reopen(): Promise<T> }> {
  let db = await fresh.open();
  return {
    first: make(db),
    reopen: async () => {
      await db.destroy();
      db = await fresh.open();
      return make(db);
    },
  };
}

/**
 * A fresh store and one pool opened on it for each test of the describe block this is called in (beforeEach), closed
 * after it: `db` is the current test's.
 */
export function eachFreshDb(freshStore: () => Promise<FreshStore>, options?: OpenOptions): { readonly db: Knex; readonly store: FreshStore } {
  let fresh: FreshStore | undefined;
  let db: Knex | undefined;
  beforeEach(async () => {
    fresh = await freshStore();
    db = await fresh.open(options);
  });
  afterEach(() => fresh?.close());
  return {
    get db(): Knex {
      if (!db) throw new Error('eachFreshDb: no test is running');
      return db;
    },
    /** The test's store, to open it again (another pool, as another process would). */
    get store(): FreshStore {
      if (!fresh) throw new Error('eachFreshDb: no test is running');
      return fresh;
    },
  };
}

/**
 * For the end-to-end suites (describe.each): the storage a `chainflow start` is configured with. SQLite: none given
 * (the default file under the working folder); PostgreSQL: a fresh database of the test cluster, dropped by the suite.
 */
export const E2E_STORAGES: ReadonlyArray<readonly [string, () => Promise<FreshPostgres | undefined>]> = [
  ['SQLite', async () => undefined],
  ['PostgreSQL', freshPostgres],
];

/** The config's `storage:` section for a storage of E2E_STORAGES (empty for the default). */
export function storageSection(database: FreshPostgres | undefined): string {
  return database ? `storage:\n  url: ${database.url}\n` : '';
}

/**
 * `it` on the first storage of E2E_STORAGES, nothing on the others: for a case of a suite run on every store whose
 * storage paths another suite already runs on every store (or that touches none), so the slow part is not doubled.
 * Each suite's header says which cases it keeps to one store.
 */
export function itOnFirstStorage(storageName: string): (name: string, fn: () => Promise<unknown> | void, timeout?: number) => void {
  return storageName === E2E_STORAGES[0]![0] ? (name, fn, timeout) => it(name, async () => { await fn(); }, timeout) : () => undefined;
}
