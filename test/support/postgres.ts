/**
 * Test support: a throwaway PostgreSQL 15 cluster and a fresh database in it for each store a test opens.
 *
 * `npm test` (jest's globalSetup, test/postgres-setup.ts) starts one cluster for the whole run and passes its URL to
 * the workers in CHAINFLOW_TEST_PG_URL; globalTeardown stops it and removes its data directory. A test file run by
 * hand goes through the same globalSetup. Should the variable still be unset (a script that imports this module
 * outside jest), the first call starts a cluster for this process alone and stops it when the process exits.
 */
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { openDatabase } from '../../src/adapters/storage';
import { startPostgresCluster } from '../../src/adapters/postgres/postgres-cluster';

export { PG_BIN, startPostgresCluster, type PostgresCluster } from '../../src/adapters/postgres/postgres-cluster';

export const PG_URL_ENV = 'CHAINFLOW_TEST_PG_URL';

let ownCluster: Promise<string> | undefined;

/** The run's cluster (CHAINFLOW_TEST_PG_URL), or one started for this process when the variable is unset. */
export function clusterUrl(): Promise<string> {
  const given = process.env[PG_URL_ENV];
  if (given) return Promise.resolve(given);
  ownCluster ??= startPostgresCluster().then((cluster) => {
    process.once('exit', () => cluster.stop());
    return cluster.url;
  });
  return ownCluster;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

let template: Promise<string> | undefined;
let counter = 0;
/**
 * Jest loads this module again for each test file of a worker (same pid, counter back at 0): a tag per load keeps names
 * unique even when an earlier file left a database behind.
 */
const LOAD_TAG = randomBytes(4).toString('hex');
/** CREATE DATABASE … TEMPLATE refuses while another one copies the same template: one copy at a time per process. */
let creating: Promise<unknown> = Promise.resolve();

/** One statement on the maintenance database, over a connection of its own (nothing stays open after a test file). */
async function onCluster(sql: string): Promise<void> {
  const db = knexFactory({ client: 'pg', connection: await clusterUrl(), pool: { min: 0, max: 1 } });
  try {
    await db.raw(sql);
  } finally {
    await db.destroy();
  }
}

/** A database migrated once per jest worker; every fresh database is a copy of it (a copy costs far less than the migrations). */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `chainflow_template_${process.pid}`;
    await onCluster(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await onCluster(`CREATE DATABASE ${name}`);
    const migrated = await openDatabase(withDatabase(await clusterUrl(), name));
    await migrated.destroy();
    return name;
  })();
  return template;
}

export interface FreshPostgres {
  /** `postgres://…/<unique name>`, migrated, empty: give it to openDatabase (as many times as a test needs). */
  readonly url: string;
  /** Drops the database (closing whatever still holds a connection to it). */
  drop(): Promise<void>;
}

/** A new, empty, migrated database with a unique name in the test cluster: what a fresh SQLite file is to SQLite tests. */
export async function freshPostgres(): Promise<FreshPostgres> {
  const source = await migratedTemplate();
  const name = `chainflow_${process.pid}_${LOAD_TAG}_${++counter}`;
  const created = creating.then(() => onCluster(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  creating = created.catch(() => undefined);
  await created;
  const url = withDatabase(await clusterUrl(), name);
  return { url, drop: () => onCluster(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
