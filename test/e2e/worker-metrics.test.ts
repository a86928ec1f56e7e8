/**
 * `chainflow worker --metrics-port P` (CONTRACT 11): a worker has no API, yet its own counters (runs it ended, the
 * steps it ran, sends, budget refusals) are what only it can tell, so it serves `GET /metrics` on its own port and
 * nothing else, under the server's bearer. The real built CLI on a SQLite file and on PostgreSQL (the worker claims
 * a run another process journaled); the refusals at start, which stop before the store is opened, on SQLite only.
 * Needs `npm run build`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, BIN } from '../support/cli';
import { chainflowAsync, eventually, freePort } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, removeTempDir } from '../support/server';
import { E2E_STORAGES, itOnFirstStorage, storageSection } from '../support/stores';

const TOKEN = 'worker-metrics-token-5b2e';
const ENV = { CF_API_TOKEN: TOKEN };
const config = (storage: string): string => `chainflow_version: 1
${storage}secrets:
  api_token: { env: CF_API_TOKEN }
server:
  auth: { token: { secret: api_token } }
engine:
  poll_interval: 1s
workflows:
  payouts:
    trigger: { kind: manual }
    steps:
      - { id: quote, type: http_call, url: "http://127.0.0.1:9/quote", retry: { attempts: 1 } }
`;

interface Worker { child: ChildProcess; log: () => string; exited: Promise<number | null> }

function startWorker(dir: string, args: readonly string[], env: Record<string, string> = ENV): Worker {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, NO_COLOR: '1', CHAINFLOW_LOG_LEVEL: 'info' };
  delete childEnv.CHAINFLOW_CONFIG;
  const child = spawn(process.execPath, [BIN, 'worker', ...args], { cwd: dir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => void (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => void (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, log: () => log, exited };
}

describe.each(E2E_STORAGES)('chainflow worker --metrics-port, on %s', (storageName, freshStorage) => {
  let database: FreshPostgres | undefined;
  let dir: string;
  let worker: Worker | undefined;
  let port: number;
  beforeAll(async () => {
    assertBuilt();
    dir = makeTempDir('chainflow-worker-metrics-');
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(storageSection(database)));
    port = await freePort();
    worker = startWorker(dir, ['--metrics-port', String(port)]);
    await eventually(async () => (/chainflow worker running/.test(worker!.log()) ? true : undefined), 20_000, 'the worker to start');
  }, 30_000);
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await database?.drop();
    removeTempDir(dir);
  });

  const scrape = (p = '/metrics', headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => fetch(`http://127.0.0.1:${port}${p}`, { headers });

  it('serves the runs it ended and the steps it ran, with the process metrics and build info; nothing else on the port', async () => {
    const line = JSON.parse(worker!.log().split('\n').find((l) => l.includes('chainflow worker running'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, msg: 'chainflow worker running', metrics: `http://127.0.0.1:${port}/metrics` });

    // A run started elsewhere (the CLI, detached) is driven by the worker, which fails it.
    const started = await chainflowAsync(['run', 'payouts', '--detach', '--json'], dir, ENV);
    expect(JSON.parse(started.stdout)).toMatchObject({ workflow: 'payouts', run_id: expect.any(String) });
    const page = await eventually(async () => {
      const text = await (await scrape()).text();
      return /^chainflow_runs_total\{workflow="payouts",status="failed"\} 1$/m.test(text) ? text : undefined;
    }, 20_000, 'the worker to count the failed run');
    expect(page).toMatch(/^chainflow_step_duration_seconds_count\{workflow="payouts",step_type="http_call"\} 1$/m);
    expect(page).toMatch(/^chainflow_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m);
    expect(page).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(page).toMatch(/^# TYPE chainflow_budget_refusals_total counter$/m);
    expect(page).toMatch(/^# TYPE chainflow_sends_total counter$/m);
    expect(page).toMatch(/^# TYPE chainflow_runs_waiting gauge$/m);
    expect(page).not.toMatch(/chainflow_http_requests_total/);

    const other = await scrape('/api/history/runs');
    expect([other.status, await other.json()]).toEqual([404, { error: 'not found' }]);
    const post = await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  }, 40_000);

  it('asks for the server\'s bearer, as /metrics of chainflow start does', async () => {
    const anonymous = await scrape('/metrics', {});
    expect([anonymous.status, anonymous.headers.get('www-authenticate'), await anonymous.json()]).toEqual([401, 'Bearer', { error: 'unauthorized' }]);
    expect((await scrape('/metrics', { 'x-service-token': TOKEN })).status).toBe(200);
    expect((await scrape('/metrics', { authorization: 'Bearer wrong' })).status).toBe(401);
  });

  // Refused before the store is opened: the same on every store.
  itOnFirstStorage(storageName)('refuses a taken port, an unset token variable or a host without a port in one line, and starts nothing', async () => {
    const taken = startWorker(dir, ['--metrics-port', String(port)]);
    expect(await taken.exited).not.toBe(0);
    expect(taken.log()).toMatch(new RegExp(`--metrics-port: cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)`));
    expect(taken.log()).not.toMatch(/\n\s+at /);
    const unset = startWorker(dir, ['--metrics-port', String(await freePort())], {});
    expect(await unset.exited).not.toBe(0);
    expect(unset.log()).toMatch(/CF_API_TOKEN/);
    const hostAlone = startWorker(dir, ['--metrics-host', '0.0.0.0']);
    expect(await hostAlone.exited).toBe(2);
    expect(hostAlone.log()).toMatch(/--metrics-host: --metrics-port/);
  }, 30_000);
});
