/**
 * docs/workflows.md promises that docs/examples/chainflow.yaml runs as it is: the real server runs it (on a free port
 * instead of 8080, the one change), each workflow does what the walk-through says, and the page quotes the file
 * word for word. The file runs as it is on the default SQLite file and, with a `storage:` section added, on
 * PostgreSQL. On PostgreSQL only the cron listing and the rejected order (its notification through the outbox): the
 * approved order and backfill wait out the example's 5 s delays, and their paths (a webhook run parked on an approval
 * decided from the CLI, `chainflow run` parking a run the server finishes) run on both stores in engine.test.ts.
 * The quote is checked once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { signPayload } from '../../src/domain/engine/webhook-signature';
import { assertBuilt } from '../support/cli';
import { chainflowAsync, eventually, freePort, startProcessServer, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, itOnFirstStorage, storageSection } from '../support/stores';

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE = fs.readFileSync(path.join(REPO, 'docs/examples/chainflow.yaml'), 'utf8');
const ENV = { ORDERS_HOOK_SECRET: 'orders-hook-secret-7a1c', NOTIFY_SECRET: `whsec_${Buffer.from('example-notify-secret-0123456789ab').toString('base64')}` };

/** docs/examples/receiver.js as its header says to start it; `lines` are what it printed (each a verified delivery). */
async function startReceiver(port: number): Promise<{ child: ChildProcess; lines: unknown[] }> {
  const child = spawn(process.execPath, [path.join(REPO, 'docs/examples/receiver.js')], {
    env: { ...process.env, NOTIFY_SECRET: ENV.NOTIFY_SECRET, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: unknown[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(JSON.parse(line)));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => { if (line.includes('listening')) resolve(); });
  });
  return { child, lines };
}

describe.each(E2E_STORAGES)('docs/examples/chainflow.yaml, run as docs/workflows.md says, on %s', (storageName, freshStorage) => {
  let database: FreshPostgres | undefined;
  let dir: string;
  let server: ProcessServer;
  let receiver: { child: ChildProcess; lines: unknown[] };
  const cli = (...args: string[]) => chainflowAsync(args, dir, ENV);
  const runItem = async (runId: string): Promise<{ status: string; wait_kind: string | null } | undefined> =>
    ((await (await fetch(`${server.baseUrl}/api/history/runs?run_id=${runId}`)).json()) as { items: { status: string; wait_kind: string | null }[] }).items[0];
  const reaches = (runId: string, status: string, waitKind: string | null = null) => eventually(async () => {
    const item = await runItem(runId);
    return item?.status === status && (waitKind === null || item.wait_kind === waitKind) ? item : undefined;
  }, 20_000, `run ${runId} to be ${status}${waitKind ? ` (${waitKind})` : ''}`);
  const hook = async (payload: unknown): Promise<{ status: number; body: { run_id: string } }> => {
    const body = JSON.stringify(payload);
    const t = Math.floor(Date.now() / 1000);
    const res = await fetch(`${server.baseUrl}/hooks/orders`, {
      method: 'POST', body, headers: { 'x-chainflow-signature': `t=${t},v1=${signPayload(ENV.ORDERS_HOOK_SECRET, t, body)}` },
    });
    return { status: res.status, body: (await res.json()) as { run_id: string } };
  };

  beforeAll(async () => {
    assertBuilt();
    dir = makeTempDir('chainflow-example-');
    const port = await freePort();
    const receiverPort = await freePort();
    receiver = await startReceiver(receiverPort);
    database = await freshStorage();
    const example = EXAMPLE.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`).replaceAll('127.0.0.1:8081', `127.0.0.1:${receiverPort}`);
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `${example}${storageSection(database)}`);
    server = await startProcessServer(dir, ENV, [], port);
  }, 30_000);
  afterAll(async () => {
    receiver?.child.kill('SIGTERM');
    await tearDownSuite({ server, database, dir });
  });

  const itOnFirst = itOnFirstStorage(storageName);

  itOnFirst('docs/workflows.md quotes the example file word for word', () => {
    const doc = fs.readFileSync(path.join(REPO, 'docs/workflows.md'), 'utf8');
    expect(doc).toContain(['```yaml', EXAMPLE.trimEnd(), '```'].join('\n'));
  });

  it('lists its three workflows with the next cron tick', async () => {
    const res = await cli('workflows', '--json');
    expect(res.status).toBe(0);
    const items = JSON.parse(res.stdout).items as { workflow: string; trigger: string; next_tick_at: string | null }[];
    expect(items.map((w) => [w.workflow, w.trigger])).toEqual([['backfill', 'manual'], ['heartbeat', 'cron'], ['orders', 'webhook']]);
    const next = Date.parse(items[1]!.next_tick_at!);
    expect(next % 60_000).toBe(0);
    expect(next - Date.now()).toBeLessThanOrEqual(60_000);
  });

  itOnFirst('orders: a signed webhook runs its check, parks on the approval, and finishes once approved', async () => {
    const skipped = await hook({ order: 'A-0', quantity: 0 });
    expect(skipped.status).toBe(202);
    await reaches(skipped.body.run_id, 'skipped');

    const { status, body } = await hook({ order: 'A-1001', quantity: 3 });
    expect(status).toBe(202);
    await reaches(body.run_id, 'waiting', 'approval');
    const approved = await cli('approvals', 'approve', `${body.run_id}.approve`, '--reason', 'stock checked');
    expect(approved.status).toBe(0);
    await reaches(body.run_id, 'waiting', 'delay');
    await reaches(body.run_id, 'succeeded');
    const timeline = JSON.parse((await cli('runs', 'timeline', body.run_id, '--json')).stdout) as { events: { kind: string; step_id?: string; status?: string }[] };
    expect(timeline.events.filter((e) => e.kind === 'step').map((e) => [e.step_id, e.status])).toEqual([
      ['check_stock', 'succeeded'], ['approve', 'succeeded'], ['cool_down', 'succeeded'], ['notify', 'succeeded'],
    ]);
  }, 40_000);

  itOnFirst('backfill: chainflow run drives it until its delay, the server finishes it; chainflow test skips its report', async () => {
    const res = await cli('run', 'backfill', '--input', '{"day": "2026-11-01"}', '--json');
    expect(res.status).toBe(0);
    const item = JSON.parse(res.stdout) as { run_id: string; status: string; wait_kind: string };
    expect(item).toMatchObject({ status: 'waiting', wait_kind: 'delay' });
    await reaches(item.run_id, 'succeeded');

    const tested = await cli('test', 'backfill', '--input', '{"day": "2026-11-01"}', '--json');
    const testRun = JSON.parse(tested.stdout) as { run_id: string; session: string };
    expect(testRun.session).toBe('test');
    await reaches(testRun.run_id, 'succeeded');
    const timeline = JSON.parse((await cli('runs', 'timeline', testRun.run_id, '--json')).stdout) as { events: { kind: string; step_id?: string; status?: string }[] };
    expect(timeline.events.filter((e) => e.kind === 'step').map((e) => [e.step_id, e.status])).toEqual([
      ['fetch', 'succeeded'], ['wait_a_bit', 'succeeded'], ['report', 'skipped'],
    ]);
  }, 40_000);

  it('a rejected order fails its run, and docs/examples/receiver.js gets it signed and verifies it', async () => {
    const { status, body } = await hook({ order: 'A-1002', quantity: 1 });
    expect(status).toBe(202);
    await reaches(body.run_id, 'waiting', 'approval');
    expect(receiver.lines).toEqual([]); // the rule lists failures only: the approval request is not told
    const rejected = await cli('approvals', 'reject', `${body.run_id}.approve`, '--reason', 'out of stock');
    expect(rejected.status).toBe(0);
    await reaches(body.run_id, 'failed');
    const delivery = await eventually(async () => receiver.lines[0], 10_000, 'the receiver to print a verified delivery');
    expect(delivery).toEqual({
      webhook_id: expect.stringMatching(/^msg_/), type: 'run_failed', at: expect.any(String),
      data: expect.objectContaining({ run_id: body.run_id, workflow: 'orders', status: 'failed', error_kind: 'approval_rejected' }),
    });
    const listed = JSON.parse((await cli('notifications', 'history', '--json')).stdout) as { items: { id: string; status: string }[] };
    expect(listed.items).toEqual([expect.objectContaining({ id: (delivery as { webhook_id: string }).webhook_id, status: 'delivered' })]);
  }, 40_000);
});
