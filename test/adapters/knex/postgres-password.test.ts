/**
 * storage.password reaches PostgreSQL: the connection knex receives, on the run's cluster, and a real password check
 * on a cluster of this file's own, whose pg_hba.conf asks one role for SCRAM (the shared cluster trusts everyone,
 * and other suites rely on that).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import knexFactory, { type Knex } from 'knex';
import { postgresConnection } from '../../../src/adapters/postgres/postgres-open';
import { Database } from '../../../src/adapters/knex/knex-journal.writer';
import { openRoot, type Root } from '../../../src/bin/root';
import { SecretMissingError, StorageError } from '../../../src/domain/errors';
import { RecordingLogger } from '../../fakes/recording-logger';
import { freshPostgres, startPostgresCluster, type FreshPostgres, type PostgresCluster } from '../../support/postgres';

const PASSWORD = 'pä%ss w@rd:/?#1';
const dirs: string[] = [];

function configFile(url: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-pgpass-'));
  dirs.push(dir);
  const file = path.join(dir, 'chainflow.yaml');
  fs.writeFileSync(file, `chainflow_version: 1\nstorage:\n  url: ${url}\n  password: { env: CF_DB_PASSWORD }\n`);
  return file;
}

function open(url: string, password: string | undefined): Promise<Root> {
  const file = configFile(url);
  const env = password === undefined ? {} : { CF_DB_PASSWORD: password };
  return openRoot({ cwd: path.dirname(file), configPath: file, env, logger: new RecordingLogger() });
}

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('postgresConnection', () => {
  it('puts the password into the connection knex gets, encoded, and leaves a URL without one as it is', () => {
    const { connectionString } = postgresConnection('postgres://cf@db.example:5433/chainflow?sslmode=require', PASSWORD);
    const u = new URL(connectionString);
    expect(decodeURIComponent(u.password)).toBe(PASSWORD);
    expect([u.username, u.hostname, u.port, u.pathname, u.search]).toEqual(['cf', 'db.example', '5433', '/chainflow', '?sslmode=require']);
    expect(postgresConnection('postgres://cf@db/chainflow')).toEqual({ connectionString: 'postgres://cf@db/chainflow' });
  });
});

describe('storage.password on the run\'s PostgreSQL', () => {
  let fresh: FreshPostgres;
  beforeAll(async () => {
    fresh = await freshPostgres();
  });
  afterAll(() => fresh.drop());

  it('the root opens the database with the password it resolved; an unset variable stops it before connecting', async () => {
    const root = await open(fresh.url, 'plumbed');
    try {
      const db = root.container.get<Knex>(Database);
      const given = (db.client as { config: { connection: { connectionString: string } } }).config.connection.connectionString;
      expect(new URL(given).password).toBe('plumbed');
      expect(await db.raw('select 1 as one')).toBeTruthy();
    } finally {
      await root.close();
    }
    await expect(open(fresh.url, undefined)).rejects.toThrow(SecretMissingError);
    await expect(open(fresh.url, undefined)).rejects.toThrow(/^opening the storage needs storage\.password \(environment variable CF_DB_PASSWORD is not set\)$/);
  });
});

describe('storage.password against a SCRAM-protected role', () => {
  let cluster: PostgresCluster;
  let url: string;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const admin = knexFactory({ client: 'pg', connection: cluster.url, pool: { min: 0, max: 1 } });
    try {
      await admin.raw("SET password_encryption = 'scram-sha-256'");
      // knex.raw reads `?` as a binding's place: escaped, so that the role gets the password as written.
      await admin.raw(`CREATE ROLE chainflow_app LOGIN PASSWORD '${PASSWORD.replace(/'/g, "''").replace(/\?/g, '\\?')}'`);
      await admin.raw('CREATE DATABASE chainflow_app OWNER chainflow_app');
      // This role over TCP must prove its password; the first matching line of pg_hba.conf wins.
      const hba = path.join(cluster.dataDir, 'pg_hba.conf');
      fs.writeFileSync(hba, `host all chainflow_app 127.0.0.1/32 scram-sha-256\n${fs.readFileSync(hba, 'utf8')}`);
      await admin.raw('SELECT pg_reload_conf()');
    } finally {
      await admin.destroy();
    }
    const u = new URL(cluster.url);
    url = `postgres://chainflow_app@127.0.0.1:${u.port}/chainflow_app`;
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('connects and migrates with the right password', async () => {
    const root = await open(url, PASSWORD);
    try {
      const db = root.container.get<Knex>(Database);
      const who = await db.raw('select current_user as who');
      expect(who.rows).toEqual([{ who: 'chainflow_app' }]);
      expect(await db('meta').where({ key: 'cursor_key' }).first()).toBeDefined();
    } finally {
      await root.close();
    }
  });

  it('a wrong password is a StorageError that names the failed authentication, never the password', async () => {
    const failure = await open(url, 'not-the-password').then(() => undefined, (err: unknown) => err);
    expect(failure).toBeInstanceOf(StorageError);
    expect(String((failure as Error).message)).toMatch(/connecting to the database failed: authentication failed \(SQLSTATE 28P01\)/);
    expect(String((failure as Error).message)).not.toContain('not-the-password');
  });
});
