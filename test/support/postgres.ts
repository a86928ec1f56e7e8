/**
 * Test support: a throwaway PostgreSQL 15 cluster and a fresh database in it for each store a test opens.
 *
 * `npm test` (jest's globalSetup, test/postgres-setup.ts) starts one cluster for the whole run and passes its URL to
 * the workers in CHAINFLOW_TEST_PG_URL; globalTeardown stops it and removes its data directory. A test file run by
 * hand goes through the same globalSetup. Should the variable still be unset (a script that imports this module
 * outside jest), the first call starts a cluster for this process alone and stops it when the process exits.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import knexFactory from 'knex';
import { openDatabase } from '../../src/adapters/knex/connection';

export const PG_URL_ENV = 'CHAINFLOW_TEST_PG_URL';
/** Where Debian's postgresql-15 puts its programs (CHAINFLOW_PG_BIN overrides). */
export const PG_BIN = process.env.CHAINFLOW_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the cluster's maintenance database, as the superuser. */
  readonly url: string;
  readonly dataDir: string;
  /** Stops the server at once (a throwaway cluster keeps nothing) and removes its directory. Safe to call twice. */
  stop(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function logOf(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').slice(-4000) : '';
}

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user that Debian's package creates. */
function asPostgres(program: string, args: readonly string[]): { status: number | null; output: string } {
  const path = join(PG_BIN, program);
  const r = process.getuid?.() === 0
    ? spawnSync('runuser', ['-u', 'postgres', '--', path, ...args], { encoding: 'utf8' })
    : spawnSync(path, [...args], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/**
 * initdb (trust, UTF-8, C collation) on a fresh directory under /tmp and pg_ctl start on a free port of 127.0.0.1,
 * unix sockets in the data directory. Durability is switched off: nothing here outlives the run.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  if (!existsSync(join(PG_BIN, 'initdb'))) {
    throw new Error(`PostgreSQL 15 not found at ${PG_BIN}: run \`node scripts/ensure-postgres.js\` (installs Debian's postgresql as root) or set CHAINFLOW_PG_BIN`);
  }
  // /tmp itself, not TMPDIR: the postgres user must reach it, and a unix socket's path is short (107 bytes at most).
  const root = mkdtempSync(join('/tmp', 'chainflow-pg-'));
  const dataDir = join(root, 'data');
  const fail = (what: string, output: string): never => {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`test PostgreSQL: ${what} failed: ${output}`);
  };
  if (process.getuid?.() === 0) {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (uid.status !== 0) fail('finding the postgres user', 'no such user (Debian\'s postgresql-15 package creates it)');
    chownSync(root, Number(uid.stdout.trim()), -1);
  }
  const init = asPostgres('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  if (init.status !== 0) fail('initdb', init.output);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const options = [
      `-h 127.0.0.1 -p ${port} -k ${dataDir}`,
      '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
      // Two jest workers, each with a pool of up to 10 per open store and a second store in the two-writer tests.
      '-c max_connections=400',
    ].join(' ');
    const start = asPostgres('pg_ctl', ['-D', dataDir, '-l', join(root, 'server.log'), '-w', '-t', '30', '-o', options, 'start']);
    if (start.status === 0) break;
    // Another process took the port between the probe and the start: try another one.
    if (attempt >= 3) fail('pg_ctl start', `${start.output}\n${logOf(join(root, 'server.log'))}`);
  }
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    stop() {
      if (stopped) return;
      stopped = true;
      asPostgres('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

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
  const name = `chainflow_${process.pid}_${++counter}`;
  const created = creating.then(() => onCluster(`CREATE DATABASE ${name} TEMPLATE ${source}`));
  creating = created.catch(() => undefined);
  await created;
  const url = withDatabase(await clusterUrl(), name);
  return { url, drop: () => onCluster(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
