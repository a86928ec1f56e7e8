/**
 * The operator's log of the real `chainflow start` (CONTRACT 11, issue 30): a refused webhook is one JSON line naming
 * why (the sender still reads only `bad signature`), a failed run one error line with its run id, workflow, step,
 * error kind and message; no secret in either. On a SQLite file and on PostgreSQL (the log says the same whichever
 * store the process writes). Needs `npm run build`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { signPayload } from '../../src/domain/engine/webhook-signature';
import { assertBuilt } from '../support/cli';
import { eventually, startProcessServer, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';

const HOOK_SECRET = 'hook-secret-operator-log-7c1e';

const config = (storage: string): string => `chainflow_version: 1
${storage}secrets:
  hook: { env: HOOK_SECRET }
workflows:
  payouts:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    steps:
      - { id: notify, type: http_call, url: "http://127.0.0.1:9/notify", retry: { attempts: 1 } }
`;

/** The JSON lines the process logged so far. */
const logLines = (server: ProcessServer): Array<Record<string, unknown>> =>
  server.log().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(E2E_STORAGES)('chainflow start: the operator log, on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let dir: string;
  let server: ProcessServer;
  beforeAll(async () => {
    assertBuilt();
    dir = makeTempDir('chainflow-operator-log-');
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(storageSection(database)));
    server = await startProcessServer(dir, { HOOK_SECRET, CHAINFLOW_LOG_LEVEL: 'info' });
  });
  afterAll(() => tearDownSuite({ server, database, dir }));

  const deliver = (signature: string, body = '{"amount":"5"}', workflow = 'payouts') =>
    fetch(`${server.baseUrl}/hooks/${workflow}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-chainflow-signature': signature } });

  it('a stale, a wrongly signed and a malformed delivery: 401 bad signature each, one warn line each with its reason', async () => {
    const body = '{"amount":"5"}';
    const stale = Math.floor(Date.now() / 1000) - 600;
    const now = Math.floor(Date.now() / 1000);
    for (const signature of [`t=${stale},v1=${signPayload(HOOK_SECRET, stale, body)}`, `t=${now},v1=${signPayload('wrong', now, body)}`, 'v1=nothing']) {
      const res = await deliver(signature, body);
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: 'bad signature' } });
    }
    const refused = await eventually(async () => {
      const lines = logLines(server).filter((l) => l.msg === 'webhook refused');
      return lines.length === 3 ? lines : undefined;
    }, 10_000, 'three webhook refused lines');
    expect(refused.map((l) => [l.level, l.workflow, l.reason])).toEqual([
      [40, 'payouts', 'stale timestamp'], [40, 'payouts', 'bad signature'], [40, 'payouts', 'malformed header'],
    ]);
  });

  it('a run that fails is one error line with its run id, workflow, step, error kind and message', async () => {
    const body = '{"amount":"6"}';
    const t = Math.floor(Date.now() / 1000);
    const res = await deliver(`t=${t},v1=${signPayload(HOOK_SECRET, t, body)}`, body);
    expect(res.status).toBe(202);
    const { run_id: runId } = (await res.json()) as { run_id: string };
    const line = await eventually(async () => logLines(server).find((l) => l.msg === 'run failed' && l.run_id === runId), 20_000, 'the run failed line');
    expect(line).toMatchObject({ level: 50, workflow: 'payouts', step: 'notify', status: 'failed', error_kind: 'http_error', message: expect.stringContaining('GET') });
    expect(server.log() + server.stderr()).not.toContain(HOOK_SECRET);
  });

  it('is one JSON-lines stream on standard output: lifecycle, operator and request lines in the order they happen; nothing on standard error', async () => {
    const before = logLines(server).length;
    const res = await deliver('v1=nothing');
    expect(res.status).toBe(401);
    const lines = await eventually(async () => {
      const now = logLines(server).slice(before);
      return now.some((l) => l.msg === 'request') ? now : undefined;
    }, 10_000, 'the request line');
    expect(lines.map((l) => [l.msg, l.level, l.msg === 'request' ? l.status : l.reason])).toEqual([
      ['webhook refused', 40, 'malformed header'], ['request', 30, 401],
    ]);
    const all = logLines(server);
    expect(all[0]).toMatchObject({ msg: 'chainflow listening', level: 30, engine: 'on' });
    expect(server.log().split('\n').filter((l) => l !== '' && !l.startsWith('{'))).toEqual([]);
    expect(server.stderr()).toBe('');
  });
});
