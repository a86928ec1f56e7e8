/**
 * `npm run bench -- --engine`: the engine's figures (issue #10), on a SQLite file under .bench/engine/:
 * - overhead per step: runs of a workflow of http_calls to a local server that answers at once, driven in this
 *   process; per step, the run's time divided by its steps, minus the bare round trip to that server;
 * - throughput: runs/s of a three-step workflow (a condition and two http_calls) on one engine process;
 * - recovery: 1,000 runs parked on 5 s delays, `kill -9` of `chainflow start`, a restart: time until all finished,
 *   and each step finished once;
 * - a signed webhook accepted (202), p50 against GET /live in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { Knex } from 'knex';
import { NodeHttpClient } from '../src/adapters/http-client';
import { Database } from '../src/adapters/knex/knex-journal.writer';
import { Engine } from '../src/application/engine/engine';
import { MAX_RESPONSE_BYTES } from '../src/application/engine/step-runners';
import { openRoot, type Root } from '../src/bin/root';
import { startServer } from '../src/bin/server';
import { signPayload } from '../src/domain/engine/webhook-signature';
import { HttpClient, nowMs, stats, type Stats } from './timing';

export interface EngineFigures {
  readonly stepOverhead: Stats;
  readonly bareCall: Stats;
  readonly stepsPerRun: number;
  readonly throughput: { runs: number; seconds: number; runsPerSec: number };
  readonly recovery: { runs: number; secondsToAll: number; stepsFinishedTwice: number; calls: number };
  readonly webhook: { accepted: Stats; live: Stats; ratio: number };
}

type Log = (msg: string) => void;

/** A local server that answers every request at once, counting requests per path. */
async function instantServer(): Promise<{ server: Server; url: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

function config(stub: string, extra = ''): string {
  return `chainflow_version: 1
storage:
  url: sqlite:engine.db
secrets:
  hook: { env: BENCH_HOOK_SECRET }
engine:
  lease_ttl: 5s
  poll_interval: 1s
workflows:
  steps5:
    trigger: { kind: manual }
    steps:
${[1, 2, 3, 4, 5].map((i) => `      - { id: s${i}, type: http_call, url: "${stub}/s${i}", retry: { attempts: 1 } }`).join('\n')}
  three:
    trigger: { kind: manual }
    conditions: [ { name: positive, if: "int(trigger.payload.n) >= 0" } ]
    steps:
      - { id: a, type: http_call, url: "${stub}/a" }
      - { id: b, type: http_call, url: "${stub}/b" }
  sleepy:
    trigger: { kind: manual }
    steps:
      - { id: nap, type: delay, duration: 5s }
      - { id: after, type: http_call, url: "${stub}/after" }
  hooked:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    steps:
      - { id: wait, type: delay, duration: 1h }
${extra}`;
}

const HOOK_SECRET = 'bench-hook-secret-0123456789';

async function fresh(dir: string, stub: string): Promise<Root> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chainflow.yaml'), config(stub));
  return openRoot({ cwd: dir, configPath: join(dir, 'chainflow.yaml'), env: { BENCH_HOOK_SECRET: HOOK_SECRET }, profile: 'server', logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
}

async function stepOverhead(root: Root, stub: string, runs: number, log: Log): Promise<{ overhead: Stats; bare: Stats }> {
  const client = new NodeHttpClient();
  const bareSamples: number[] = [];
  for (let i = 0; i < runs * 5 + 50; i++) {
    const t = nowMs();
    await client.request({ method: 'GET', url: `${stub}/bare`, headers: {}, timeoutMs: 10_000, maxBodyBytes: MAX_RESPONSE_BYTES, redirects: 'follow' });
    if (i >= 50) bareSamples.push(nowMs() - t);
  }
  const bare = stats(bareSamples);
  const engine = root.container.get(Engine);
  const per: number[] = [];
  for (let i = 0; i < runs + 20; i++) {
    const t = nowMs();
    await engine.runHere({ workflow: 'steps5', trigger: { kind: 'manual', summary: 'bench' } });
    if (i >= 20) per.push((nowMs() - t) / 5 - bare.p50);
  }
  const overhead = stats(per);
  log(`engine: step overhead p50 ${overhead.p50.toFixed(2)} ms (p99 ${overhead.p99.toFixed(2)}), bare call p50 ${bare.p50.toFixed(2)} ms`);
  return { overhead, bare };
}

async function throughput(root: Root, runs: number, log: Log): Promise<EngineFigures['throughput']> {
  const db = root.container.get<Knex>(Database);
  const engine = root.container.get(Engine);
  const t = nowMs();
  engine.start();
  // As the API and webhooks start runs: the engine of this process takes what it has room for, the rest waits in
  // the schedule for its claims.
  await Promise.all(Array.from({ length: runs }, (_, n) => engine.submit({ workflow: 'three', trigger: { kind: 'manual', summary: 'bench', payload: { n } } })));
  for (;;) {
    const [{ n }] = (await db.raw("SELECT count(*) AS n FROM runs WHERE workflow = 'three' AND status = 'succeeded'")) as { n: number }[];
    if (Number(n) >= runs) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (nowMs() - t) / 1000;
  await engine.stop();
  log(`engine: ${runs} three-step runs in ${seconds.toFixed(2)} s: ${(runs / seconds).toFixed(0)} runs/s`);
  return { runs, seconds, runsPerSec: runs / seconds };
}

async function webhook(root: Root, samples: number, log: Log): Promise<EngineFigures['webhook']> {
  const server = await startServer(root, { port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
  const port = (server.address() as AddressInfo).port;
  const client = new HttpClient(port);
  try {
    const live: number[] = [];
    const accepted: number[] = [];
    for (let i = 0; i < samples + 50; i++) {
      let t = nowMs();
      await client.getOk('/live');
      const liveMs = nowMs() - t;
      const body = JSON.stringify({ delivery: i, amount: '1000' });
      const ts = Math.floor(Date.now() / 1000);
      t = nowMs();
      const res = await client.post('/hooks/hooked', body, { 'content-type': 'application/json', 'x-chainflow-signature': `t=${ts},v1=${signPayload(HOOK_SECRET, ts, body)}` });
      const ms = nowMs() - t;
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}: ${res.body}`);
      if (i >= 50) {
        live.push(liveMs);
        accepted.push(ms);
      }
    }
    const a = stats(accepted);
    const l = stats(live);
    log(`engine: webhook 202 p50 ${a.p50.toFixed(2)} ms vs /live ${l.p50.toFixed(2)} ms (${(a.p50 / l.p50).toFixed(2)}x)`);
    return { accepted: a, live: l, ratio: a.p50 / l.p50 };
  } finally {
    client.close();
    await new Promise<void>((r) => server.close(() => r()));
    await root.container.get(Engine).stop();
  }
}

function spawnServer(dir: string, repo: string, port: number): ChildProcess {
  return spawn(process.execPath, [join(repo, 'bin', 'run.js'), 'start', '--port', String(port), '--config', join(dir, 'chainflow.yaml')], {
    cwd: dir, env: { ...process.env, BENCH_HOOK_SECRET: HOOK_SECRET, CHAINFLOW_LOG_LEVEL: 'warn' }, stdio: ['ignore', 2, 'inherit'],
  }); // its log (JSON lines on its stdout) beside the bench's progress on stderr, out of the report
}

export async function waitLive(port: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/live`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('chainflow start did not answer /live');
}

async function recovery(dir: string, repo: string, stub: { url: string; hits: Map<string, number> }, runs: number, log: Log): Promise<EngineFigures['recovery']> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chainflow.yaml'), config(stub.url));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  let child = spawnServer(dir, repo, port);
  await waitLive(port);
  const ids: string[] = [];
  for (let i = 0; i < runs; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, runs - i) }, async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/workflows/sleepy/runs`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      return ((await res.json()) as { run_id: string }).run_id;
    }));
    ids.push(...batch);
  }
  // Read beside the server (another process on the same SQLite file): every run started is parked.
  const reader = await openRoot({ cwd: dir, configPath: join(dir, 'chainflow.yaml'), env: { BENCH_HOOK_SECRET: HOOK_SECRET } });
  try {
    const knex = reader.container.get<Knex>(Database);
    for (;;) {
      const [{ n }] = (await knex.raw("SELECT count(*) AS n FROM runs WHERE workflow = 'sleepy' AND status = 'waiting'")) as { n: number }[];
      if (Number(n) >= ids.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await reader.close();
  }
  // Every run parked on its 5 s delay (the first started about as long ago as starting 1,000 runs takes): kill -9.
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const t = nowMs();
  child = spawnServer(dir, repo, port);
  try {
    await waitLive(port);
    const db = await openRoot({ cwd: dir, configPath: join(dir, 'chainflow.yaml'), env: { BENCH_HOOK_SECRET: HOOK_SECRET } });
    try {
      const knex = db.container.get<Knex>(Database);
      for (;;) {
        const [{ n }] = (await knex.raw("SELECT count(*) AS n FROM runs WHERE workflow = 'sleepy' AND status = 'succeeded'")) as { n: number }[];
        if (Number(n) >= runs) break;
        if (nowMs() - t > 120_000) throw new Error(`only ${n} of ${runs} runs finished after 120 s`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const secondsToAll = (nowMs() - t) / 1000;
      const twice = (await knex.raw(
        `SELECT count(*) AS n FROM (SELECT json_extract(body, '$.step_run_id') AS s FROM events WHERE type = 'step.finished' AND stream IN (SELECT run_id FROM runs WHERE workflow = 'sleepy')
         GROUP BY s HAVING count(*) > 1)`,
      )) as { n: number }[];
      const calls = stub.hits.get('/after') ?? 0;
      log(`engine: ${runs} parked runs all finished ${secondsToAll.toFixed(2)} s after kill -9 and restart; steps finished twice: ${twice[0]!.n}; /after calls ${calls}`);
      return { runs, secondsToAll, stepsFinishedTwice: Number(twice[0]!.n), calls };
    } finally {
      await db.close();
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function benchEngine(opts: { work: string; repo: string; log: Log }): Promise<EngineFigures> {
  const stub = await instantServer();
  try {
    const dir = join(opts.work, 'engine');
    let root = await fresh(dir, stub.url);
    let overhead;
    try {
      overhead = await stepOverhead(root, stub.url, 300, opts.log);
    } finally {
      await root.close();
    }
    root = await fresh(dir, stub.url);
    let tp;
    try {
      tp = await throughput(root, 3000, opts.log);
    } finally {
      await root.close();
    }
    root = await fresh(dir, stub.url);
    let hook;
    try {
      hook = await webhook(root, 1000, opts.log);
    } finally {
      await root.close();
    }
    stub.hits.delete('/after');
    const rec = await recovery(join(opts.work, 'engine-recovery'), opts.repo, stub, 1000, opts.log);
    return { stepOverhead: overhead.overhead, bareCall: overhead.bare, stepsPerRun: 5, throughput: tp, recovery: rec, webhook: hook };
  } finally {
    stub.server.closeAllConnections();
    await new Promise<void>((r) => stub.server.close(() => r()));
  }
}

export function renderEngine(f: EngineFigures): { text: string; pass: boolean } {
  const overheadOk = f.stepOverhead.p50 <= 2;
  const tpOk = f.throughput.runsPerSec >= 300;
  const recOk = f.recovery.secondsToAll <= 10 && f.recovery.stepsFinishedTwice === 0 && f.recovery.calls === f.recovery.runs;
  const hookOk = f.webhook.ratio <= 3;
  const verdict = (ok: boolean): string => (ok ? 'met' : '**missed**');
  const text = [
    '## Engine (SQLite)', '',
    `- Overhead per step (journal, lease, scheduling; ${f.stepsPerRun} http_calls per run to a local server, minus its bare round trip p50 ${f.bareCall.p50.toFixed(2)} ms): p50 **${f.stepOverhead.p50.toFixed(2)} ms**, p99 ${f.stepOverhead.p99.toFixed(2)} ms — target p50 ≤ 2 ms: ${verdict(overheadOk)}`,
    `- Throughput, three-step workflow (a condition, two http_calls), one process: **${f.throughput.runsPerSec.toFixed(0)} runs/s** (${f.throughput.runs} runs in ${f.throughput.seconds.toFixed(2)} s) — target ≥ 300: ${verdict(tpOk)}`,
    `- ${f.recovery.runs} runs parked on 5 s delays, kill -9 of chainflow start, restart: all finished **${f.recovery.secondsToAll.toFixed(2)} s** after the restart; steps finished twice: ${f.recovery.stepsFinishedTwice}; calls of the step after the delay: ${f.recovery.calls} — target ≤ 10 s, each step once: ${verdict(recOk)}`,
    `- Signed webhook accepted (202): p50 **${f.webhook.accepted.p50.toFixed(2)} ms** vs GET /live ${f.webhook.live.p50.toFixed(2)} ms in the same run = **${f.webhook.ratio.toFixed(2)}x** (p99 ${f.webhook.accepted.p99.toFixed(2)} ms) — target ≤ 3x: ${verdict(hookOk)}`,
    '',
  ].join('\n');
  return { text, pass: overheadOk && tpOk && recOk && hookOk };
}
