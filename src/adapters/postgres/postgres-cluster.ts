/**
 * A throwaway PostgreSQL 15 cluster (Debian's package: initdb and pg_ctl, as the postgres user when run as root),
 * for the test suites (test/support/postgres.ts) and `npm run bench -- --scale`: nothing in it outlives its run.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

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
export function asPostgres(program: string, args: readonly string[]): { status: number | null; output: string } {
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
