/**
 * Amounts beyond 2^53 through the API and webhooks, with the engine of an in-process server (CONTRACT 8.8): the
 * payload keeps the number's exact decimal text, and u256 compares it exactly in a condition. On a SQLite file and on
 * PostgreSQL (what the run stores is what the API answers, on either).
 */
import { RunRepository } from '../../../src/application/ports/run-repository';
import { signPayload } from '../../../src/domain/engine/webhook-signature';
import { eventually } from '../../support/process';
import { startTestServer, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';

const HOOK_SECRET = 'hook-secret-for-amounts';
const NOOP = { id: 'noop', type: 'delay', duration: '1s', if: 'false' };

describe.each(E2E_STORAGES)('exact amounts over HTTP, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      storage: await freshStorage(),
      env: { HOOK_SECRET },
      config: {
        secrets: { hook: { env: 'HOOK_SECRET' } },
        workflows: {
          large: {
            trigger: { kind: 'webhook', auth: { hmac: { secret: 'hook' } } },
            conditions: [{ name: 'above_ten_tokens', if: 'u256(trigger.payload.amount) > u256("10000000000000000000")' }],
            steps: [NOOP],
          },
          narrow: {
            trigger: { kind: 'manual' },
            conditions: [{ name: 'positive', if: 'int(trigger.payload.amount) > 0' }],
            steps: [NOOP],
          },
        },
      },
    });
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
  });

  const hook = async (raw: string): Promise<string> => {
    const t = Math.floor(Date.now() / 1000);
    const res = await fetch(`${srv.baseUrl}/hooks/large`, {
      method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-chainflow-signature': `t=${t},v1=${signPayload(HOOK_SECRET, t, raw)}` },
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { run_id: string }).run_id;
  };
  const startRun = async (workflow: string, raw: string): Promise<string> => {
    const res = await fetch(`${srv.baseUrl}/api/workflows/${workflow}/runs`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(202);
    return ((await res.json()) as { run_id: string }).run_id;
  };
  /** The run's payload as journaled, and how it ended. */
  const ended = (runId: string) => eventually(async () => {
    const stream = await srv.root.container.get<RunRepository>(RunRepository).stream(runId);
    const started = stream.find((e) => e.type === 'run.started');
    const finished = stream.find((e) => e.type === 'run.finished');
    if (!started || !finished) return undefined;
    return { payload: (started as { trigger: { payload?: unknown } }).trigger.payload, finished: finished as { status: string; error?: { kind: string; message: string } } };
  }, 10_000, `run ${runId} to end`);

  it('a webhook body number beyond 2^53 is journaled exactly, and u256 compares it exactly', async () => {
    const above = await ended(await hook('{"amount": 10000000000000000001}'));
    expect(above.payload).toEqual({ amount: '10000000000000000001' });
    expect(above.finished.status).toBe('succeeded');
    // 2^60 + 1: JSON.parse would make it 2^60.
    const below = await ended(await hook('{"amount": 1152921504606846977, "note": 1.5}'));
    expect(below.payload).toEqual({ amount: '1152921504606846977', note: 1.5 });
    expect(below.finished.status).toBe('skipped');
    const equal = await ended(await hook('{"amount": 10000000000000000000}'));
    expect(equal.finished.status).toBe('skipped');
  });

  it('the input of POST /api/workflows/:wf/runs keeps its numbers exact', async () => {
    const run = await ended(await startRun('large', '{"input": {"amount": 10000000000000000001}}'));
    expect(run.payload).toEqual({ amount: '10000000000000000001' });
    expect(run.finished.status).toBe('succeeded');
  });

  it('a condition that takes int() of an amount beyond int64 fails the run expression_error, saying so', async () => {
    const run = await ended(await startRun('narrow', '{"input": {"amount": 10000000000000000000}}'));
    expect(run.finished.status).toBe('failed');
    expect(run.finished.error).toEqual({ kind: 'expression_error', message: 'condition positive: int(): 10000000000000000000 is beyond int64; use u256(...)' });
    expect((await ended(await startRun('narrow', '{"input": {"amount": 5}}'))).finished.status).toBe('succeeded');
  });

  it('still refuses a body that is not JSON, or not an object, with a 400', async () => {
    for (const raw of ['{"input": ', '"text"']) {
      const res = await fetch(`${srv.baseUrl}/api/workflows/large/runs`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
    }
  });
});
