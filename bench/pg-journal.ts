/**
 * `npm run bench -- --read --postgres`: the 1M-run journal on PostgreSQL, in a cluster the bench keeps between runs
 * (issue #29, Figure 3). Copying the SQLite journal in costs about a quarter of an hour (docs/benchmarks.md,
 * `--copy`), so it is done once: the cluster's data directory stays (BENCH_READ_PG_DIR, default `.bench/pg-read`),
 * a later run starts the server again when it is down and finds the database filled. BENCH_READ_PG=postgres://…
 * names a database holding such a copy instead (nothing is started or copied then).
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import knexFactory from 'knex';
import { asPostgres, PG_BIN } from '../src/adapters/postgres/postgres-cluster';

/**
 * Settings of the kept cluster: durability off (a bench copy, rebuilt from the SQLite file if lost), and a cache
 * of 2 GB as an operator would give a database of this size (the table and indexes of the pages read are ~3 GB).
 */
const SERVER_OPTIONS = '-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100 '
  + '-c shared_buffers=2GB -c work_mem=32MB -c maintenance_work_mem=512MB -c max_wal_size=8GB';
const PORT = 55_931;

export interface PgJournal {
  /** The database's URL. */
  readonly url: string;
  /** Stops the server when this run started it (a server found running is left so). */
  stop(): void;
  /** CPU milliseconds the kept cluster's processes have used so far (undefined for BENCH_READ_PG's). */
  cpuMs?: () => number;
}

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime of the postmaster `pid` and its children (the backends, running or ended), in ms, from /proc. */
function clusterCpuMs(pid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // Fields after the command's closing parenthesis: state ppid … utime (14th field) stime (15th), cutime cstime.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
    // The postmaster's own, and those of its children that have ended (a backend whose connection the pool closed).
    if (Number(entry) === pid) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** The port of a running cluster, from its postmaster.pid (4th line), or undefined when it is down. */
function runningPort(dataDir: string): number | undefined {
  if (asPostgres('pg_ctl', ['-D', dataDir, 'status']).status !== 0) return undefined;
  return Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
}

/** Counts `runs` in the database, 0 when it has no such table. */
async function runsIn(url: string): Promise<number> {
  const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    const has = await db.raw(`SELECT to_regclass('public.runs') AS t`);
    if (!has.rows[0].t) return 0;
    return Number((await db.raw('SELECT count(*) AS n FROM runs')).rows[0].n);
  } finally {
    await db.destroy();
  }
}

/** The kept cluster's database holding a copy of `sqlitePath` (`runs` runs), made when missing. */
export async function ensurePgJournal(o: { work: string; repo: string; sqlitePath: string; runs: number; log: (m: string) => void }): Promise<PgJournal> {
  const given = process.env.BENCH_READ_PG;
  if (given) return { url: given, stop: () => {} };
  if (!existsSync(join(PG_BIN, 'initdb'))) throw new Error(`PostgreSQL 15 not found at ${PG_BIN}: run \`node scripts/ensure-postgres.js\` or set CHAINFLOW_PG_BIN`);
  const root = process.env.BENCH_READ_PG_DIR ?? join(o.work, 'pg-read');
  const dataDir = join(root, 'data');
  if (!existsSync(dataDir)) {
    mkdirSync(root, { recursive: true });
    if (process.getuid?.() === 0) chownSync(root, Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()), -1);
    const init = asPostgres('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    if (init.status !== 0) throw new Error(`initdb failed: ${init.output}`);
  }
  let port = runningPort(dataDir);
  let started = false;
  if (port === undefined) {
    const start = asPostgres('pg_ctl', ['-D', dataDir, '-l', join(root, 'server.log'), '-w', '-t', '60', '-o', `-h 127.0.0.1 -p ${PORT} -k ${dataDir} ${SERVER_OPTIONS}`, 'start']);
    if (start.status !== 0) throw new Error(`pg_ctl start failed: ${start.output}`);
    port = PORT;
    started = true;
  }
  const stop = (): void => void (started && asPostgres('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']));
  const name = `journal_${o.runs}`;
  const url = `postgres://postgres@127.0.0.1:${port}/${name}`;
  try {
    const admin = knexFactory({ client: 'pg', connection: `postgres://postgres@127.0.0.1:${port}/postgres`, pool: { min: 0, max: 1 } });
    const exists = (await admin.raw('SELECT 1 FROM pg_database WHERE datname = ?', [name])).rows.length > 0;
    // A copy is one transaction: a database with fewer runs is a copy that did not finish (or never began).
    if (!exists || (await runsIn(url)) < o.runs) {
      if (exists) await admin.raw(`DROP DATABASE ${name}`);
      await admin.raw(`CREATE DATABASE ${name}`);
      o.log(`copying ${o.sqlitePath} into ${url} (once; about a quarter of an hour at 1M runs)`);
      const copy = spawnSync(process.execPath, [join(o.repo, 'bin', 'run.js'), 'storage', 'copy', '--from', `sqlite:${o.sqlitePath}`, '--to', url], { encoding: 'utf8', maxBuffer: 1 << 26 });
      if (copy.status !== 0) throw new Error(`storage copy failed (exit ${copy.status}): ${copy.stdout.slice(-2000)}${copy.stderr.slice(-2000)}`);
      // The planner's statistics of the copied tables (autovacuum would take them later, while the bench measures).
      const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
      await db.raw('VACUUM ANALYZE').finally(() => db.destroy());
    }
    await admin.destroy();
    const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return { url, stop, cpuMs: () => clusterCpuMs(postmaster) };
  } catch (e) {
    stop();
    throw e;
  }
}
