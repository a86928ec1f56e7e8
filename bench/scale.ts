/**
 * `npm run bench -- --scale` (issue #29): several processes on one database, PostgreSQL beside SQLite in one run, on
 * a throwaway PostgreSQL 15 cluster started here as the tests start theirs (src/adapters/postgres/postgres-cluster.ts).
 * - throughput: runs/s of a three-step workflow (three http_calls to a local server that answers at once) driven by
 *   `chainflow worker` processes: one on SQLite, one on PostgreSQL, three on PostgreSQL. The runs are recorded in the
 *   schedule first (unowned, due now), then the workers take them; the figure counts the runs that ended between the
 *   first one's end and the last one's (9,000 runs by default: each process's first second or so of warm-up, paid
 *   once per process, weighs on three processes' short window three times). Where the time goes: the CPU seconds
 *   of each worker and of the PostgreSQL server's processes over the same window (utime + stime from /proc/<pid>/stat).
 * - takeover: a run's worker killed -9 mid-step, 20 times: from the kill to the run's next journal event, written
 *   by the other worker (its next attempt's start). Bound: lease_ttl + one poll_interval.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { openDatabase } from '../src/adapters/storage';
import { startPostgresCluster, type PostgresCluster } from '../src/adapters/postgres/postgres-cluster';
import { StartRun } from '../src/application/engine/start-run.use-case';
import { openRoot } from '../src/bin/root';
import { nowMs, stats, type Stats } from './timing';

type Log = (msg: string) => void;

const LEASE_TTL_S = 3;
const POLL_S = 1;
const KILLS = 20;
const CLOCK_TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in these

export interface ThroughputFigure {
  readonly label: string;
  readonly runs: number;
  readonly seconds: number;
  readonly runsPerSec: number;
  /** CPU seconds over the window: each worker, and the database server (PostgreSQL's processes; none for SQLite). */
  readonly cpu: ReadonlyArray<{ readonly name: string; readonly seconds: number }>;
}

export interface ScaleFigures {
  readonly throughput: readonly ThroughputFigure[];
  readonly takeover: { readonly samples: Stats; readonly boundMs: number };
  readonly env: string;
  /** Some cases were left out (BENCH_SCALE_CASES): the report is not a verdict. */
  readonly partial: boolean;
}

function config(storage: string, receiver: string): string {
  return `chainflow_version: 1
storage:
  url: ${storage}
engine:
  lease_ttl: ${LEASE_TTL_S}s
  poll_interval: ${POLL_S}s
workflows:
  three:
    trigger: { kind: manual }
    steps:
      - { id: a, type: http_call, url: "${receiver}/a" }
      - { id: b, type: http_call, url: "${receiver}/b" }
      - { id: c, type: http_call, url: "${receiver}/c" }
  hold:
    trigger: { kind: manual }
    steps:
      - { id: call, type: http_call, url: "${receiver}/hold", timeout: 5m }
`;
}

/** Answers at once, except a first attempt of `/hold`, which it never answers (its caller is killed meanwhile). */
async function startReceiver(): Promise<{ server: Server; url: string; held: string[] }> {
  const held: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      if (req.url === '/hold' && key.endsWith(':1')) {
        held.push(key);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held };
}

/** CPU seconds a process has used so far (0 once it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime (fields 14 and 15)
  } catch {
    return 0;
  }
}

/** The postmaster and its children (backends, writer, WAL writer…), by pid. */
function postgresPids(cluster: PostgresCluster): number[] {
  const postmaster = Number(readFileSync(join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[1]) === postmaster) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

interface Worker { readonly child: ChildProcess; readonly exited: Promise<void>; readonly ready: Promise<void> }

function spawnWorker(repo: string, dir: string): Worker {
  const child = spawn(process.execPath, [join(repo, 'bin', 'run.js'), 'worker', '--config', join(dir, 'chainflow.yaml')], {
    cwd: dir, env: { ...process.env, CHAINFLOW_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('chainflow worker running')) resolve();
      if (out.length > 1 << 16) out = out.slice(-4096);
    });
    child.once('exit', (code) => reject(new Error(`chainflow worker exited ${code}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited: new Promise<void>((r) => child.once('exit', () => r())) };
}

async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
}

/**
 * How long to wait before counting the ended runs again: half the time the rest should take at the rate so far,
 * between 10 and 500 ms. Each count reads the ended runs' index entries (at 9,000 runs about 2 ms of PostgreSQL's
 * CPU); counted every 20 ms, the bench's own counts were a sixth of PostgreSQL's CPU in the window, taken from the
 * processes it measures. Halving the wait, the counts close on the last run within 10 ms, a few dozen counts a case.
 */
function untilNextCount(left: number, runsPerMs: number): number {
  return runsPerMs > 0 ? Math.min(500, Math.max(10, left / runsPerMs / 2)) : 100;
}

const rowsOf = <T>(r: unknown): T[] => (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[];
const count = async (db: Knex, sql: string, args: string[] = []): Promise<number> => Number(Object.values(rowsOf<Record<string, unknown>>(await db.raw(sql, args))[0]!)[0]);

/** A fresh folder with the config over `storage`, and `runs` runs of `workflow` recorded in the schedule, due now. */
async function prepare(dir: string, storage: string, receiver: string, workflow: string, runs: number): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chainflow.yaml'), config(storage, receiver));
  const root = await openRoot({ cwd: dir, configPath: join(dir, 'chainflow.yaml'), logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
  try {
    const start = root.container.get(StartRun);
    for (let i = 0; i < runs; i += 100) {
      await Promise.all(Array.from({ length: Math.min(100, runs - i) }, () => start.execute({ workflow, session: 'live', trigger: { kind: 'manual', summary: 'bench scale' } })));
    }
  } finally {
    await root.close();
  }
}

async function throughput(opts: { label: string; dir: string; storage: string; receiver: string; repo: string; processes: number; runs: number; cluster?: PostgresCluster; log: Log }): Promise<ThroughputFigure> {
  await prepare(opts.dir, opts.storage, opts.receiver, 'three', opts.runs);
  const db = await openDatabase(opts.storage);
  const workers = Array.from({ length: opts.processes }, () => spawnWorker(opts.repo, opts.dir));
  try {
    const done = (): Promise<number> => count(db, "SELECT count(*) AS n FROM runs WHERE workflow = 'three' AND status = 'succeeded'");
    // The window opens at the first run's end (every worker started by then, or starting: they all take from one queue).
    await Promise.all(workers.map((w) => w.ready));
    let first = 0;
    while ((first = await done()) === 0) await new Promise((r) => setTimeout(r, 5));
    const pgPids = opts.cluster ? postgresPids(opts.cluster) : [];
    const cpu0 = workers.map((w) => cpuSeconds(w.child.pid!));
    const pg0 = new Map(pgPids.map((pid) => [pid, cpuSeconds(pid)]));
    const t0 = nowMs();
    let last = first;
    while ((last = await done()) < opts.runs) {
      const elapsed = nowMs() - t0;
      if (elapsed > 600_000) throw new Error(`${opts.label}: ${last} of ${opts.runs} runs after 10 minutes`);
      await new Promise((r) => setTimeout(r, untilNextCount(opts.runs - last, (last - first) / elapsed)));
    }
    const seconds = (nowMs() - t0) / 1000;
    const cpu = workers.map((w, n) => ({ name: `worker ${n + 1}`, seconds: cpuSeconds(w.child.pid!) - cpu0[n]! }));
    if (opts.cluster) {
      // Backends started meanwhile count from zero; those that ended meanwhile are not seen (the pools keep theirs).
      const pg = postgresPids(opts.cluster).reduce((sum, pid) => sum + cpuSeconds(pid) - (pg0.get(pid) ?? 0), 0);
      cpu.push({ name: 'postgres', seconds: pg });
    }
    const figure = { label: opts.label, runs: last - first, seconds, runsPerSec: (last - first) / seconds, cpu };
    opts.log(`scale: ${opts.label}: ${figure.runs} runs in ${seconds.toFixed(2)} s, ${figure.runsPerSec.toFixed(0)} runs/s; CPU ${cpu.map((c) => `${c.name} ${c.seconds.toFixed(1)} s`).join(', ')}`);
    return figure;
  } finally {
    await stopWorkers(workers);
    await db.destroy();
  }
}

/** Two workers; 20 times: a run held mid-step by one of them, kill -9 of it, the time until the other journals the run's next event. */
async function takeover(opts: { dir: string; storage: string; receiver: { url: string; held: string[] }; repo: string; log: Log }): Promise<number[]> {
  await prepare(opts.dir, opts.storage, opts.receiver.url, 'hold', 0);
  const db = await openDatabase(opts.storage);
  const workers = [spawnWorker(opts.repo, opts.dir), spawnWorker(opts.repo, opts.dir)];
  const root = await openRoot({ cwd: opts.dir, configPath: join(opts.dir, 'chainflow.yaml'), logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
  const samples: number[] = [];
  try {
    await Promise.all(workers.map((w) => w.ready));
    const start = root.container.get(StartRun);
    for (let k = 0; k < KILLS; k++) {
      const { runId } = await start.execute({ workflow: 'hold', session: 'live', trigger: { kind: 'manual', summary: 'bench takeover' } });
      const key = `${runId}.call:1`;
      while (!opts.receiver.held.includes(key)) await new Promise((r) => setTimeout(r, 5));
      const owner = String((await db('engine_runs').where({ run_id: runId }).first('owner')).owner);
      const victim = workers.findIndex((w) => owner.includes(`:${w.child.pid}:`));
      if (victim < 0) throw new Error(`run ${runId} held by ${owner}, not by a worker of the bench`);
      const events = await count(db, 'SELECT count(*) AS n FROM events WHERE stream = ?', [runId]);
      const killedAt = Date.now();
      workers[victim]!.child.kill('SIGKILL');
      await workers[victim]!.exited;
      let next: { at: unknown } | undefined;
      while (!(next = await db('events').where({ stream: runId }).andWhere('seq', '>', events).orderBy('seq').first('at'))) {
        if (Date.now() - killedAt > 60_000) throw new Error(`run ${runId} not taken over within 60 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
      samples.push(Number(next.at) - killedAt);
      opts.log(`scale: takeover ${k + 1}/${KILLS}: ${samples.at(-1)} ms`);
      workers[victim] = spawnWorker(opts.repo, opts.dir);
      await workers[victim]!.ready;
    }
    return samples;
  } finally {
    await root.close();
    await stopWorkers(workers);
    await db.destroy();
  }
}

async function createDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  const admin = knexFactory({ client: 'pg', connection: cluster.url, pool: { min: 0, max: 1 } });
  try {
    await admin.raw(`CREATE DATABASE ${name}`);
  } finally {
    await admin.destroy();
  }
  const u = new URL(cluster.url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function benchScale(opts: { work: string; repo: string; runs: number; log: Log }): Promise<ScaleFigures> {
  const env = `node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(2)} at start (other processes share the machine)`;
  const receiver = await startReceiver();
  const cluster = await startPostgresCluster();
  try {
    const dir = (name: string): string => join(opts.work, 'scale', name);
    const figures: ThroughputFigure[] = [];
    const common = { receiver: receiver.url, repo: opts.repo, runs: opts.runs, log: opts.log };
    // BENCH_SCALE_CASES (comma-separated: sqlite, pg1, pg3, takeover) measures only those; the report needs all four.
    const only = new Set((process.env.BENCH_SCALE_CASES ?? 'sqlite,pg1,pg3,takeover').split(','));
    const skipped: ThroughputFigure = { label: 'skipped', runs: 0, seconds: 1, runsPerSec: 0, cpu: [] };
    figures.push(only.has('sqlite') ? await throughput({ ...common, label: 'SQLite, 1 process', dir: dir('sqlite-1'), storage: `sqlite:${join(dir('sqlite-1'), 'scale.db')}`, processes: 1 }) : skipped);
    figures.push(only.has('pg1') ? await throughput({ ...common, label: 'PostgreSQL, 1 process', dir: dir('pg-1'), storage: await createDatabase(cluster, 'scale_1'), processes: 1, cluster }) : skipped);
    figures.push(only.has('pg3') ? await throughput({ ...common, label: 'PostgreSQL, 3 processes', dir: dir('pg-3'), storage: await createDatabase(cluster, 'scale_3'), processes: 3, cluster }) : skipped);
    const kills = only.has('takeover') ? await takeover({ dir: dir('takeover'), storage: await createDatabase(cluster, 'scale_takeover'), receiver, repo: opts.repo, log: opts.log }) : [0];
    const partial = ['sqlite', 'pg1', 'pg3', 'takeover'].some((c) => !only.has(c));
    return { throughput: figures, takeover: { samples: stats(kills), boundMs: (LEASE_TTL_S + POLL_S) * 1000 }, env: partial ? `${env}; only ${[...only].join(', ')} measured` : env, partial };
  } finally {
    cluster.stop();
    receiver.server.closeAllConnections();
    await new Promise<void>((r) => receiver.server.close(() => r()));
  }
}

export function renderScale(f: ScaleFigures): { text: string; pass: boolean } {
  const [sqlite, pg1, pg3] = f.throughput as [ThroughputFigure, ThroughputFigure, ThroughputFigure];
  const pgOk = pg1.runsPerSec >= 0.5 * sqlite.runsPerSec;
  const threeOk = pg3.runsPerSec >= pg1.runsPerSec;
  const takeoverOk = f.takeover.samples.p99 <= f.takeover.boundMs;
  const verdict = (ok: boolean): string => (ok ? 'met' : '**missed**');
  const row = (t: ThroughputFigure): string => `| ${t.label} | **${t.runsPerSec.toFixed(0)}** | ${t.runs} in ${t.seconds.toFixed(2)} s | ${t.cpu.map((c) => `${c.name} ${c.seconds.toFixed(1)} s (${(100 * c.seconds / t.seconds).toFixed(0)}%)`).join(', ')} |`;
  const text = [
    '## Several processes on one database (`--scale`)', '',
    f.env, '',
    '| store, engine processes | runs/s | runs counted | CPU over the window (share of one core) |', '|---|---|---|---|',
    row(sqlite), row(pg1), row(pg3), '',
    `- PostgreSQL, 1 process: ${(100 * pg1.runsPerSec / sqlite.runsPerSec).toFixed(0)}% of SQLite — target ≥ 50%: ${verdict(pgOk)}`,
    `- PostgreSQL, 3 processes: ${(pg3.runsPerSec / pg1.runsPerSec).toFixed(2)}x one — target ≥ 1x: ${verdict(threeOk)}`,
    `- Takeover after kill -9 (kill to the run's next journal event, by the other worker; ${f.takeover.samples.n} kills): p50 ${f.takeover.samples.p50.toFixed(0)} ms, ` +
      `**p99 ${f.takeover.samples.p99.toFixed(0)} ms**, max ${f.takeover.samples.max.toFixed(0)} ms — target ≤ lease_ttl + poll_interval = ${f.takeover.boundMs} ms: ${verdict(takeoverOk)}`,
    '',
  ].join('\n');
  return { text, pass: !f.partial && pgOk && threeOk && takeoverOk };
}
