/**
 * The engine end to end (CONTRACT 8): the real `chainflow start` process on a real SQLite file and on PostgreSQL
 * (CONTRACT 10), the real CLI, real
 * HTTP (webhooks in, http_calls out to a local stub service), and kill -9 of the server with runs parked and one
 * mid-step, then a restart that finishes them with no step finished twice.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { signPayload } from '../../src/domain/engine/webhook-signature';
import { assertBuilt } from '../support/cli';
import { chainflowAsync, eventually, startProcessServer, StubService, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, removeTempDir } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';

const HOOK_SECRET = 'hook-secret-5f1c9a';
const PARTNER_KEY = 'partner-key-9d2e7b';
const API_TOKEN = 'api-token-3c8a1f0e';
const ENV = { HOOK_SECRET, PARTNER_KEY, API_TOKEN };

interface RunItem { run_id: string; workflow: string; status: string; error_kind: string | null; trigger: string; wait_kind: string | null }

function config(stub: string, other: string, storage: string): string {
  return `chainflow_version: 1
${storage}secrets:
  hook: { env: HOOK_SECRET }
  partner_key: { env: PARTNER_KEY }
  api_token: { env: API_TOKEN }
server:
  auth:
    token: { secret: api_token }
engine:
  lease_ttl: 2s
  poll_interval: 1s
workflows:
  payouts:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    conditions:
      - { name: amount_positive, if: "int(trigger.payload.amount) > 0" }
    steps:
      - id: quote
        type: http_call
        method: POST
        url: "${stub}/quote"
        headers: { Authorization: { secret: partner_key } }
        body: { amount: "\${{ trigger.payload.amount }}" }
      - id: approve
        type: approval
        message: "Pay \${{ trigger.payload.amount }} wei?"
      - { id: notify, type: http_call, url: "${stub}/notify" }
  flaky:
    trigger: { kind: manual }
    steps:
      - { id: call, type: http_call, url: "${stub}/flaky", retry: { attempts: 3, backoff: 1s } }
  sleepy:
    trigger: { kind: manual }
    steps:
      - { id: nap, type: delay, duration: 3s }
      - { id: after, type: http_call, url: "${stub}/after" }
  slow:
    trigger: { kind: manual }
    steps:
      - { id: work, type: http_call, url: "${stub}/slow", timeout: 30s }
  big:
    trigger: { kind: manual }
    steps:
      - { id: fetch, type: http_call, url: "${stub}/big" }
  fits:
    trigger: { kind: manual }
    steps:
      - { id: fetch, type: http_call, url: "${stub}/fits" }
  away:
    trigger: { kind: manual }
    steps:
      - { id: call, type: http_call, url: "${stub}/away", headers: { X-Api-Key: { secret: partner_key } } }
  home:
    trigger: { kind: manual }
    steps:
      - { id: call, type: http_call, url: "${stub}/home", headers: { X-Api-Key: { secret: partner_key } } }
  open_redirect:
    trigger: { kind: manual }
    steps:
      - { id: call, type: http_call, url: "${stub}/away" }
  once:
    trigger: { kind: manual }
    steps:
      - { id: hold, type: delay, duration: 1h }
  ticker:
    trigger: { kind: cron, schedule: "* * * * * *" }
    steps:
      - { id: tick, type: http_call, url: "${stub}/tick" }
`;
}

describe.each(E2E_STORAGES)('the engine, end to end, on %s', (_name, freshStorage) => {
  let dir: string;
  let database: FreshPostgres | undefined;
  let stub: StubService;
  /** Another origin, where a redirect may try to take a step's secret headers. */
  let other: StubService;
  let server: ProcessServer;
  const cli = (...args: string[]) => chainflowAsync(args, dir, ENV);
  const api = async (method: string, p: string, body?: unknown, token = API_TOKEN): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${server.baseUrl}${p}`, {
      method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const hook = async (workflow: string, payload: unknown, opts: { t?: number; secret?: string; key?: string; raw?: string } = {}): Promise<{ status: number; body: any }> => {
    const body = opts.raw ?? JSON.stringify(payload);
    const t = opts.t ?? Math.floor(Date.now() / 1000);
    const res = await fetch(`${server.baseUrl}/hooks/${workflow}`, {
      method: 'POST', body,
      headers: { 'content-type': 'application/json', 'x-chainflow-signature': `t=${t},v1=${signPayload(opts.secret ?? HOOK_SECRET, t, body)}`, ...(opts.key ? { 'idempotency-key': opts.key } : {}) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const run = async (runId: string): Promise<RunItem> => (await api('GET', `/api/history/runs?run_id=${runId}`)).body.items[0];
  const settled = (runId: string, statuses: string[], timeoutMs = 10_000): Promise<RunItem> =>
    eventually(async () => {
      const r = await run(runId);
      return r && statuses.includes(r.status) ? r : undefined;
    }, timeoutMs, `run ${runId} to be ${statuses.join('/')}`);

  beforeAll(async () => {
    assertBuilt();
    dir = makeTempDir('chainflow-engine-');
    stub = await new StubService().start();
    other = await new StubService().start();
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(stub.baseUrl, other.baseUrl, storageSection(database)));
    server = await startProcessServer(dir, ENV);
  }, 30_000);
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await stub?.close();
    await other?.close();
    await database?.drop();
    removeTempDir(dir);
  });

  it('a signed webhook starts one run; a replay answers the same run; bad, stale, unknown and oversized deliveries are refused', async () => {
    const t = Math.floor(Date.now() / 1000);
    const first = await hook('payouts', { amount: '0' }, { t });
    expect(first.status).toBe(202);
    expect(first.body.run_id).toMatch(/^r[0-9a-z]{9}-[0-9a-f]{10}$/);
    expect(await hook('payouts', { amount: '0' }, { t })).toEqual({ status: 200, body: { run_id: first.body.run_id } });
    const keyed = await hook('payouts', { amount: '0', n: 1 }, { key: 'delivery-7' });
    expect(keyed.status).toBe(202);
    expect(await hook('payouts', { amount: '0', n: 2 }, { key: 'delivery-7' })).toEqual({ status: 200, body: { run_id: keyed.body.run_id } });
    expect(await hook('payouts', { amount: '0' }, { secret: 'wrong' })).toEqual({ status: 401, body: { error: 'bad signature' } });
    expect((await hook('payouts', { amount: '0' }, { t: t - 301 })).status).toBe(401);
    const unsigned = await fetch(`${server.baseUrl}/hooks/payouts`, { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(401);
    expect((await hook('nope', {})).status).toBe(404);
    expect((await hook('flaky', {})).status).toBe(404);
    expect((await hook('payouts', null, { raw: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }) })).status).toBe(413);
    // The condition fails: the run ends skipped, no step runs.
    expect(await settled(first.body.run_id, ['skipped'])).toMatchObject({ trigger: 'webhook' });
  });

  it('a webhook run calls the partner with its secret header, parks on the approval, and goes on when approved from the CLI', async () => {
    const { body } = await hook('payouts', { amount: '250' });
    const runId: string = body.run_id;
    const parked = await settled(runId, ['waiting']);
    expect(parked.wait_kind).toBe('approval');
    const [quote] = stub.hits('/quote');
    expect(quote!.headers.authorization).toBe(PARTNER_KEY);
    expect(JSON.parse(quote!.body)).toEqual({ amount: '250' });
    const timeline = await api('GET', `/api/history/runs/${runId}/timeline`);
    expect(JSON.stringify(timeline.body)).not.toContain(PARTNER_KEY);
    // headers is a secret-typed field: replaced whole on every surface.
    expect(timeline.body.events.find((e: any) => e.kind === 'step').input.headers).toBe('<redacted>');
    const cliTimeline = await cli('runs', 'timeline', runId, '--json');
    expect(cliTimeline.stdout).not.toContain(PARTNER_KEY);
    const exported = await cli('history', 'export', '--format', 'json', '--out', path.join(dir, 'export.json'));
    expect(exported.status).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'export.json'), 'utf8')).not.toContain(PARTNER_KEY);

    const approved = await cli('approvals', 'approve', `${runId}.approve`, '--reason', 'checked the address', '--by', 'alice');
    expect(approved).toMatchObject({ status: 0 });
    expect(approved.stdout).toMatch(/approved by alice/);
    expect(await settled(runId, ['succeeded'])).toMatchObject({ error_kind: null });
    const again = await cli('approvals', 'approve', `${runId}.approve`);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already approved/);
    const approvals = await api('GET', `/api/history/approvals?status=approved`);
    expect(approvals.body.items.find((a: any) => a.run_id === runId)).toMatchObject({ decided_by: 'alice', reason: 'checked the address' });
  });

  it('a manual run over the API is rejected over the API by a named bearer, who is recorded', async () => {
    const minted = await cli('token', 'mint', 'ops-bot', '--json');
    const { token } = JSON.parse(minted.stdout);
    const started = await api('POST', '/api/workflows/payouts/runs', { input: { amount: '9' } }, token);
    expect(started.status).toBe(202);
    const runId: string = started.body.run_id;
    await settled(runId, ['waiting']);
    expect((await api('POST', `/api/approvals/${runId}.approve/decision`, { decision: 'maybe' }, token)).status).toBe(400);
    expect((await api('POST', `/api/approvals/${runId}.approve/decision`, { decision: 'reject', reason: 'not today' }, 'wrong')).status).toBe(401);
    const decided = await api('POST', `/api/approvals/${runId}.approve/decision`, { decision: 'reject', reason: 'not today' }, token);
    expect(decided).toMatchObject({ status: 200, body: { status: 'rejected', decided_by: 'ops-bot' } });
    expect(await settled(runId, ['failed'])).toMatchObject({ error_kind: 'approval_rejected', trigger: 'manual' });
    expect((await api('POST', `/api/approvals/${runId}.approve/decision`, { decision: 'approve' }, token)).status).toBe(409);
    expect((await api('POST', '/api/approvals/no-such-approval/decision', { decision: 'approve' })).status).toBe(404);
  });

  it('retries show as attempts in the timeline: chainflow run drives until the retry parks, the server finishes it', async () => {
    stub.on('/flaky', { status: 503 }, { status: 200 });
    const res = await cli('run', 'flaky', '--json');
    expect(res.status).toBe(0);
    const item = JSON.parse(res.stdout) as RunItem;
    expect(item).toMatchObject({ workflow: 'flaky', status: 'waiting', wait_kind: 'delay', trigger: 'manual' });
    await settled(item.run_id, ['succeeded']);
    const timeline = await api('GET', `/api/history/runs/${item.run_id}/timeline`);
    const step = timeline.body.events.find((e: any) => e.kind === 'step');
    expect(step.attempts.map((a: any) => [a.attempt, a.status, a.error?.kind ?? null])).toEqual([[1, 'failed', 'http_status'], [2, 'succeeded', null]]);
    // Each attempt tells the far end which one it is: the same step run, the next attempt number.
    expect(stub.hits('/flaky').map((h) => h.headers['idempotency-key'])).toEqual([`${item.run_id}.call:1`, `${item.run_id}.call:2`]);
    const bad = await cli('run', 'flaky', '--input', '{not json');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--input/);
    expect((await cli('run', 'nope')).stderr).toMatch(/workflow nope not found/);
  });

  it('an http_call reads at most 1 MiB of an answer, and never takes its secret headers to another origin on a redirect', async () => {
    const MIB = 1024 * 1024;
    stub.on('/big', { raw: 'x'.repeat(2 * MIB) });
    stub.on('/fits', { raw: 'y'.repeat(MIB - 1) });
    stub.on('/away', { status: 302, headers: { location: `${other.baseUrl}/landing?token=query-secret-7e1` } });
    stub.on('/home', { status: 302, headers: { location: '/landing' } });
    const failedCall = async (workflow: string): Promise<{ item: RunItem; error: { kind: string; message: string } }> => {
      const res = await cli('run', workflow, '--json');
      const item = JSON.parse(res.stdout) as RunItem;
      const timeline = await api('GET', `/api/history/runs/${item.run_id}/timeline`);
      const attempts = timeline.body.events.find((e: any) => e.kind === 'step').attempts;
      return { item, error: attempts[attempts.length - 1].error };
    };
    const big = await failedCall('big');
    expect(big.item).toMatchObject({ status: 'failed', error_kind: 'http_error' });
    expect(big.error).toEqual({ kind: 'http_error', message: 'response too large' });
    const fits = await cli('run', 'fits', '--json');
    expect(JSON.parse(fits.stdout)).toMatchObject({ status: 'succeeded' });

    const away = await failedCall('away');
    expect(away.item).toMatchObject({ status: 'failed', error_kind: 'http_error' });
    expect(away.error.message).toMatch(/redirect to another origin .*refused/);
    expect(away.error.message).not.toMatch(/landing|query-secret/);
    expect(other.received).toEqual([]);
    expect(stub.hits('/away')[0]!.headers['x-api-key']).toBe(PARTNER_KEY);
    const home = await cli('run', 'home', '--json');
    expect(JSON.parse(home.stdout)).toMatchObject({ status: 'succeeded' });
    expect(stub.hits('/landing').map((h) => h.headers['x-api-key'])).toEqual([PARTNER_KEY]);
    // Without secret headers a redirect is followed wherever it leads, as before.
    expect(JSON.parse((await cli('run', 'open_redirect', '--json')).stdout)).toMatchObject({ status: 'succeeded' });
    expect(other.received.map((r) => [r.path, r.headers['x-api-key']])).toEqual([['/landing', undefined]]);
  });

  it('a manual run with an Idempotency-Key starts once, over the API and the CLI alike; a bad key is refused naming it', async () => {
    const keyed = (key: string): Promise<{ status: number; body: any }> => fetch(`${server.baseUrl}/api/workflows/once/runs`, {
      method: 'POST', body: '{}', headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': key },
    }).then(async (res) => ({ status: res.status, body: await res.json() as any }));
    const first = await keyed('sweep-2026-11-26');
    expect(first.status).toBe(202);
    expect(await keyed('sweep-2026-11-26')).toEqual({ status: 200, body: { run_id: first.body.run_id } });
    const second = await keyed('sweep-2026-11-27');
    expect(second.status).toBe(202);
    expect(second.body.run_id).not.toBe(first.body.run_id);
    const bad = await keyed('k'.repeat(201));
    expect(bad).toEqual({ status: 400, body: { error: expect.stringMatching(/^Idempotency-Key: /) } });

    // The CLI shares the key with the API: the run the API started is the one it prints.
    const again = await cli('run', 'once', '--idempotency-key', 'sweep-2026-11-26', '--json');
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ run_id: first.body.run_id, status: 'waiting' });
    const fresh = await cli('run', 'once', '--idempotency-key', 'cli-1', '--json');
    const freshAgain = await cli('run', 'once', '--idempotency-key', 'cli-1', '--json');
    expect(JSON.parse(freshAgain.stdout).run_id).toBe(JSON.parse(fresh.stdout).run_id);
    const badCli = await cli('run', 'once', '--idempotency-key', ' ');
    expect(badCli.status).toBe(2);
    expect(badCli.stderr).toMatch(/--idempotency-key/);
    const runs = (await api('GET', '/api/history/runs?workflow=once&limit=50')).body.items as RunItem[];
    expect(runs).toHaveLength(3);
  });

  it('pause and resume: a paused workflow answers webhooks 409 and refuses manual runs; resumed it runs again', async () => {
    // Started before the pause: a keyed manual run and a signed delivery.
    const keyed = (): Promise<{ status: number; body: any }> => fetch(`${server.baseUrl}/api/workflows/payouts/runs`, {
      method: 'POST', body: '{"input":{"amount":"0"}}', headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': 'before-pause' },
    }).then(async (res) => ({ status: res.status, body: await res.json() as any }));
    const byKey = await keyed();
    expect(byKey.status).toBe(202);
    const t = Math.floor(Date.now() / 1000);
    const delivered = await hook('payouts', { amount: '0' }, { t });
    expect(delivered.status).toBe(202);
    expect((await cli('workflows', 'pause', 'payouts')).status).toBe(0);
    // Their repeats start nothing, paused or not: each answers 200 with the run it started (CONTRACT 8.3, 8.7).
    expect(await keyed()).toEqual({ status: 200, body: { run_id: byKey.body.run_id } });
    expect(await hook('payouts', { amount: '0' }, { t })).toEqual({ status: 200, body: { run_id: delivered.body.run_id } });
    const repeatedCli = await cli('run', 'payouts', '--idempotency-key', 'before-pause', '--json');
    expect(JSON.parse(repeatedCli.stdout)).toMatchObject({ run_id: byKey.body.run_id });
    expect((await cli('run', 'payouts', '--idempotency-key', 'after-pause')).stderr).toMatch(/workflow paused/);
    expect(await hook('payouts', { amount: '1' })).toEqual({ status: 409, body: { error: 'workflow paused' } });
    expect((await api('POST', '/api/workflows/payouts/runs', {})).status).toBe(409);
    const listed = await api('GET', '/api/workflows');
    expect(listed.body.items.find((w: any) => w.workflow === 'payouts')).toMatchObject({ paused: true, trigger: 'webhook' });
    expect(listed.body.items.find((w: any) => w.workflow === 'ticker')).toMatchObject({ trigger: 'cron', schedule: '* * * * * *' });
    expect((await api('POST', '/api/workflows/payouts/resume')).body).toEqual({ workflow: 'payouts', paused: false });
    expect((await hook('payouts', { amount: '0' })).status).toBe(202);
    expect((await api('POST', '/api/workflows/nope/pause')).status).toBe(404);
  });

  it('an engine command a browser marks as cross-site is refused (403), a non-JSON body 415, and neither changes anything', async () => {
    const before = (await api('GET', '/api/history/runs?workflow=sleepy')).body.items.length;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await fetch(`${server.baseUrl}/api/workflows/sleepy/runs`, {
        method: 'POST', body: '{"input":{}}', headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': type },
      });
      expect({ type, status: res.status, body: await res.json() }).toEqual({ type, status: 415, body: { error: expect.stringMatching(/^Content-Type: .*application\/json/) } });
    }
    const pause = await fetch(`${server.baseUrl}/api/workflows/sleepy/pause`, { method: 'POST', headers: { authorization: `Bearer ${API_TOKEN}`, 'sec-fetch-site': 'cross-site' } });
    expect({ status: pause.status, body: await pause.json() }).toEqual({ status: 403, body: { error: 'cross-origin request refused' } });
    expect((await api('GET', '/api/workflows')).body.items.find((w: { workflow: string }) => w.workflow === 'sleepy').paused).toBe(false);
    expect((await api('GET', '/api/history/runs?workflow=sleepy')).body.items.length).toBe(before);
  });

  it('cancel ends a parked run; it is not driven any further', async () => {
    const started = await api('POST', '/api/workflows/sleepy/runs', {});
    const runId: string = started.body.run_id;
    await settled(runId, ['waiting']);
    const res = await cli('runs', 'cancel', runId);
    expect(res).toMatchObject({ status: 0 });
    expect(await run(runId)).toMatchObject({ status: 'cancelled', error_kind: 'cancelled' });
    expect((await api('POST', `/api/runs/${runId}/cancel`)).status).toBe(409);
    expect((await api('POST', '/api/runs/bad%20id/cancel')).status).toBe(400);
    await new Promise((r) => setTimeout(r, 3500));
    expect((await run(runId)).status).toBe('cancelled');
  });

  it('a cron workflow ticks on its schedule', async () => {
    const ticks = await eventually(async () => {
      const page = await api('GET', '/api/history/runs?workflow=ticker&limit=10');
      return page.body.items.filter((r: RunItem) => r.status === 'succeeded').length >= 2 ? page.body.items : undefined;
    }, 10_000, 'two cron runs');
    expect(ticks[0].trigger).toBe('cron');
    expect((await cli('workflows', 'pause', 'ticker')).status).toBe(0);
  });

  it('kill -9 with runs parked and one mid-step, then a restart: every run finishes, no step finished twice', async () => {
    stub.on('/slow', { delayMs: 1500 });
    const sleepers: string[] = [];
    for (let i = 0; i < 5; i++) sleepers.push((await api('POST', '/api/workflows/sleepy/runs', {})).body.run_id);
    const slow: string = (await api('POST', '/api/workflows/slow/runs', {})).body.run_id;
    await eventually(async () => (stub.hits('/slow').length === 1 ? true : undefined), 5000, 'the slow call');
    for (const id of sleepers) await settled(id, ['waiting']);
    await server.kill('SIGKILL');

    server = await startProcessServer(dir, ENV);
    for (const id of [...sleepers, slow]) await settled(id, ['succeeded'], 15_000);
    // At least once: the step that was running when the process died ran again as its next attempt.
    expect(stub.hits('/slow')).toHaveLength(2);
    for (const id of [...sleepers, slow]) {
      const { body } = await api('GET', `/api/history/runs/${id}/timeline`);
      const steps = body.events.filter((e: any) => e.kind === 'step');
      for (const step of steps) expect(step.attempts.filter((a: any) => a.status === 'succeeded')).toHaveLength(1);
    }
    expect(stub.hits('/after').length).toBe(sleepers.length);
  }, 40_000);
});
