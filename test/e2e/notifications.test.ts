/**
 * Notifications end to end (CONTRACT 11): the real `chainflow start` on a SQLite file and on PostgreSQL; a run whose step fails
 * notifies a local receiver that checks each delivery as a Standard Webhooks receiver does (the `standardwebhooks`
 * library's `Webhook.verify`, and the HMAC by hand over `${id}.${timestamp}.${body}` with the base64-decoded secret).
 */
import { createHmac } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { assertBuilt } from '../support/cli';
import { chainflowAsync, eventually, startProcessServer, StubService, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, removeTempDir } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';

const SECRET_BYTES = Buffer.from('a3f1c9e27b5d4086a3f1c9e27b5d4086c0ffee1234567890a3f1c9e27b5d4086', 'hex');
const WHSEC = `whsec_${SECRET_BYTES.toString('base64')}`;
const PARTNER_KEY = 'partner-key-71c3e9d0';
const ENV = { NOTIFY_SECRET: WHSEC, PARTNER_KEY };

interface Delivery {
  readonly id: string;
  readonly timestamp: number;
  readonly body: any;
  readonly raw: string;
  /** When the receiver answered (ms, this machine's clock). */
  readonly answeredAt: number;
  readonly status: number;
}

/** A webhook receiver on 127.0.0.1: verifies every delivery and answers from a script of statuses (the last repeats). */
class Receiver {
  readonly deliveries: Delivery[] = [];
  readonly refused: string[] = [];
  statuses: number[] = [200];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => void (raw += d.toString()));
      req.on('end', () => {
        const problem = verify(raw, req.headers);
        if (problem) {
          this.refused.push(problem);
          res.writeHead(400).end();
          return;
        }
        const status = (this.statuses.length > 1 ? this.statuses.shift() : this.statuses[0])!;
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
        this.deliveries.push({
          id: String(req.headers['webhook-id']), timestamp: Number(req.headers['webhook-timestamp']), body: JSON.parse(raw), raw, answeredAt: Date.now(), status,
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/chainflow`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** What a Standard Webhooks receiver checks; undefined when the delivery is genuine. */
function verify(raw: string, headers: IncomingHttpHeaders): string | undefined {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const signature = String(headers['webhook-signature'] ?? '');
  try {
    // The library checks the timestamp tolerance (5 minutes) and the signature.
    new Webhook(WHSEC).verify(raw, { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature });
  } catch (err) {
    return `library: ${(err as Error).message}`;
  }
  const expected = createHmac('sha256', SECRET_BYTES).update(`${id}.${timestamp}.${raw}`).digest('base64');
  if (!signature.split(' ').includes(`v1,${expected}`)) return 'hand-computed HMAC differs';
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return 'stale timestamp';
  return undefined;
}

function config(receiver: string, stub: string, storage: string): string {
  return `chainflow_version: 1
${storage}secrets:
  notify_secret: { env: NOTIFY_SECRET }
  partner_key: { env: PARTNER_KEY }
engine:
  poll_interval: 1s
notifications:
  ops: { kind: webhook, url: "${receiver}", secret: { secret: notify_secret } }
notify: { on: [run_failed], to: [ops] }
workflows:
  payouts:
    trigger: { kind: manual }
    steps:
      - id: quote
        type: http_call
        url: "${stub}/quote"
        headers: { Authorization: { secret: partner_key } }
        retry: { attempts: 1 }
  quiet:
    trigger: { kind: manual }
    notify: { on: [approval_requested], to: [ops] }
    steps:
      - { id: quote, type: http_call, url: "${stub}/quote", retry: { attempts: 1 } }
  gate:
    trigger: { kind: manual }
    notify: { on: [approval_requested], to: [ops] }
    steps:
      - { id: approve, type: approval, message: "Pay \${{ run.workflow }}?" }
`;
}

describe.each(E2E_STORAGES)('notifications with the real chainflow start on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let dir: string;
  let receiver: Receiver;
  let stub: StubService;
  let server: ProcessServer | undefined;

  beforeAll(() => assertBuilt());
  beforeEach(async () => {
    dir = makeTempDir('chainflow-notify-');
    receiver = await new Receiver().start();
    // The far end answers 500 with a body that names the partner key: no delivery may carry it.
    stub = await new StubService().on('/quote', { status: 500, raw: `upstream refused key ${PARTNER_KEY}` }).start();
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(receiver.url, stub.baseUrl, storageSection(database)));
  });
  afterEach(async () => {
    await server?.kill('SIGKILL');
    server = undefined;
    await receiver.close();
    await stub.close();
    await database?.drop();
    removeTempDir(dir);
  });

  const startRun = async (workflow: string): Promise<string> => {
    const res = await fetch(`${server!.baseUrl}/api/workflows/${workflow}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":{}}' });
    expect(res.status).toBe(202);
    return ((await res.json()) as { run_id: string }).run_id;
  };
  const notifications = async (): Promise<any[]> => ((await (await fetch(`${server!.baseUrl}/api/notifications`)).json()) as { items: any[] }).items;

  it('a failed run is delivered signed; refused with 500, it comes again with the same webhook-id, also after a restart', async () => {
    receiver.statuses = [500];
    server = await startProcessServer(dir, ENV);
    const runId = await startRun('payouts');
    await eventually(async () => (receiver.deliveries.length >= 1 ? true : undefined), 10_000, 'the first delivery');
    const first = receiver.deliveries[0]!;
    expect(first.body).toEqual({
      type: 'run_failed', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { run_id: runId, workflow: 'payouts', status: 'failed', step_run_id: `${runId}.quote`, error_kind: 'http_status', message: expect.any(String) },
    });
    expect(first.raw).not.toContain(PARTNER_KEY);
    expect(first.id).toMatch(/^msg_/);

    // The outbox says pending after the refusal; the process dies before the retry.
    const pending = await eventually(async () => (await notifications()).find((n) => n.attempts === 1), 5_000, 'the refusal recorded');
    expect(pending).toMatchObject({ id: first.id, channel: 'ops', type: 'run_failed', run_id: runId, status: 'pending', last_error: 'HTTP 500' });
    await server.kill('SIGKILL');
    receiver.statuses = [200];
    server = await startProcessServer(dir, ENV);

    // The retry is due within 10 s of the refusal; it comes from the new process, under the same id.
    await eventually(async () => (receiver.deliveries.length >= 2 ? true : undefined), 15_000, 'the retry after the restart');
    expect(receiver.deliveries.map((d) => [d.id, d.status])).toEqual([[first.id, 500], [first.id, 200]]);
    expect(receiver.deliveries[1]!.raw).toBe(first.raw);
    expect(receiver.refused).toEqual([]);
    const delivered = await eventually(async () => (await notifications()).find((n) => n.status === 'delivered'), 5_000, 'delivered recorded');
    expect(delivered).toMatchObject({ id: first.id, attempts: 2, status: 'delivered', next_at: null });

    // The CLI lists the same deliveries.
    const cli = await chainflowAsync(['notifications', 'history', '--json'], dir, ENV);
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout).items).toEqual([expect.objectContaining({ id: first.id, status: 'delivered', attempts: 2 })]);
  }, 60_000);

  it('a workflow whose rule does not list run_failed sends nothing when it fails; a test delivery is signed and listed; an approval request is told', async () => {
    server = await startProcessServer(dir, ENV);
    const runId = await startRun('quiet');
    await eventually(async () => {
      const run = (await (await fetch(`${server!.baseUrl}/api/history/runs?run_id=${runId}`)).json()) as { items: any[] };
      return run.items[0]?.status === 'failed' ? true : undefined;
    }, 10_000, 'the run failed');
    const test = await chainflowAsync(['notifications', 'test', 'ops', '--json'], dir, ENV);
    expect(test.status).toBe(0);
    const result = JSON.parse(test.stdout);
    expect(result).toMatchObject({ channel: 'ops', delivered: true, error: null });
    expect(receiver.deliveries.map((d) => [d.id, d.body.type])).toEqual([[result.id, 'test']]);
    expect(receiver.refused).toEqual([]);
    expect((await notifications()).map((n) => [n.id, n.type, n.status])).toEqual([[result.id, 'test', 'delivered']]);

    // An approval waiting for someone is told, with its message.
    const gated = await startRun('gate');
    const asked = await eventually(async () => receiver.deliveries.find((d) => d.body.type === 'approval_requested'), 10_000, 'the approval request');
    expect(asked.body.data).toEqual({ run_id: gated, workflow: 'gate', approval_id: `${gated}.approve`, step_run_id: `${gated}.approve`, message: 'Pay gate?', expires_at: expect.any(String) });
    const bad = await fetch(`${server.baseUrl}/api/notifications?status=sent`);
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/^status: /)]);
    expect((await chainflowAsync(['notifications', 'test', 'pager'], dir, ENV)).stderr).toMatch(/channel: names no configured notification channel \(configured: ops\)/);
  }, 60_000);

  it('chainflow run, with no engine running, delivers what its run noted before it returns', async () => {
    const run = await chainflowAsync(['run', 'payouts'], dir, ENV);
    expect(run.status).toBe(1);
    const runId = run.stdout.split(' ')[0];
    expect(receiver.deliveries.map((d) => [d.body.type, d.body.data.run_id, d.status])).toEqual([['run_failed', runId, 200]]);
    expect(receiver.refused).toEqual([]);
  }, 30_000);

  it('delivers each failing run of a series once, after its failing step finished', async () => {
    server = await startProcessServer(dir, ENV);
    const runs: string[] = [];
    for (let i = 0; i < 9; i++) {
      const runId = await startRun('payouts');
      runs.push(runId);
      const delivery = await eventually(async () => receiver.deliveries.find((d) => d.body.data.run_id === runId), 10_000, 'the delivery');
      const timeline = (await (await fetch(`${server.baseUrl}/api/history/runs/${runId}/timeline`)).json()) as { events: any[] };
      const step = timeline.events.find((e) => e.kind === 'step');
      // Told after the failure it reports, never before (the latency itself is `npm run bench -- --notifications`).
      expect(delivery.answeredAt).toBeGreaterThanOrEqual(Date.parse(step.attempts[0].finished_at));
    }
    const failed = receiver.deliveries.filter((d) => runs.includes(d.body.data.run_id));
    expect(failed.map((d) => d.body.data.run_id).sort()).toEqual([...runs].sort());
    expect(failed.every((d) => d.body.type === 'run_failed' && d.status === 200)).toBe(true);
  }, 60_000);
});
