/**
 * A graceful stop of `chainflow start` (SIGTERM): the step under way finishes, the run is let go between two steps
 * (no half-done step, no "drive failed"), the process exits without waiting for its lease to run out, and the
 * restarted server finishes the run with each step run once. On a SQLite file and on PostgreSQL (CONTRACT 10: the
 * let-go lease is a row of the database).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt } from '../support/cli';
import { eventually, startProcessServer, StubService, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';

describe.each(E2E_STORAGES)('chainflow start stopped with SIGTERM while a run is mid-step, on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let dir: string;
  let stub: StubService;
  let server: ProcessServer | undefined;

  beforeAll(async () => {
    assertBuilt();
    dir = makeTempDir('chainflow-shutdown-');
    stub = await new StubService().start();
    stub.on('/slow', { delayMs: 1500 });
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `chainflow_version: 1
${storageSection(database)}engine:
  lease_ttl: 60s
workflows:
  two_steps:
    trigger: { kind: manual }
    steps:
      - { id: slow, type: http_call, url: "${stub.baseUrl}/slow", timeout: 30s }
      - { id: after, type: http_call, url: "${stub.baseUrl}/after" }
`);
  });
  afterAll(() => tearDownSuite({ server, stops: [{ stop: () => stub.close() }], database, dir }));

  it('finishes the step under way, lets the run go, and the restarted server finishes it', async () => {
    server = await startProcessServer(dir, {});
    const started = await fetch(`${server.baseUrl}/api/workflows/two_steps/runs`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    const { run_id: runId } = (await started.json()) as { run_id: string };
    await eventually(async () => (stub.hits('/slow').length === 1 ? true : undefined), 10_000, 'the slow call');
    const stopping = Date.now();
    await server.kill('SIGTERM');
    const tookMs = Date.now() - stopping;
    // It waited for the slow call (about 1.5 s), not for its 60 s lease.
    expect(tookMs).toBeLessThan(15_000);
    expect(server.log() + server.stderr()).not.toMatch(/drive failed/);
    expect(stub.hits('/after')).toHaveLength(0);

    server = await startProcessServer(dir, {});
    const base = server.baseUrl;
    const run = await eventually(async () => {
      const page = (await (await fetch(`${base}/api/history/runs?run_id=${runId}`)).json()) as { items: { status: string }[] };
      return page.items[0]?.status === 'succeeded' ? page.items[0] : undefined;
    }, 15_000, 'the run to succeed after the restart');
    expect(run.status).toBe('succeeded');
    expect(stub.hits('/slow')).toHaveLength(1);
    expect(stub.hits('/after')).toHaveLength(1);
    const timeline = (await (await fetch(`${base}/api/history/runs/${runId}/timeline`)).json()) as { events: { kind: string; step_id?: string; attempts?: unknown[] }[] };
    expect(timeline.events.filter((e) => e.kind === 'step').map((e) => [e.step_id, e.attempts!.length])).toEqual([['slow', 1], ['after', 1]]);
  }, 60_000);
});
