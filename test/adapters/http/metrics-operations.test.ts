/**
 * `/metrics` as an operator reads it (CONTRACT 11): prom-client's process metrics and `chainflow_build_info`;
 * counters of what this process did (runs it ended, a histogram of the steps it ran); gauges read from storage
 * (waiting runs, sends in flight, event lag); and text that passes the real `promtool check metrics`, the server's
 * page and the worker's (test/support/promtool.ts). The server's page on a SQLite file and on PostgreSQL.
 */
import packageJson from '../../../package.json';
import { aPark, aResume, aRun, aWorkflowState } from '../../mothers/journal-events';
import { workerMetricsRegistry } from '../../../src/bin/process-metrics';
import { promtoolProblems } from '../../support/promtool';
import { startTestServer, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';

/** `name{labels} value` lines of one metric, as `labels -> value`. */
function samples(text: string, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(\S+?)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name) out[m[2] ?? ''] = Number(m[3]);
  }
  return out;
}

describe.each(E2E_STORAGES)('/metrics: process, engine and storage series, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  const scrape = async (): Promise<string> => (await srv.get('/metrics')).text;

  beforeAll(async () => {
    srv = await startTestServer({
      storage: await freshStorage(),
      config: {
        workflows: {
          quick: { trigger: { kind: 'manual' }, steps: [{ id: 'ping', type: 'http_call', url: '${{ trigger.payload.url }}', retry: { attempts: 1 } }] },
          never: { trigger: { kind: 'manual' }, conditions: [{ name: 'no', if: 'false' }], steps: [{ id: 'x', type: 'delay', duration: '1s' }] },
        },
      },
    });
  });
  afterAll(() => srv?.close());

  it('exports the default process metrics and chainflow_build_info{version} = 1', async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(samples(text, 'chainflow_build_info')).toEqual({ [`{version="${packageJson.version}"}`]: 1 });
  });

  it('counts the runs this process ended by workflow and status, and times the steps it ran', async () => {
    const start = async (wf: string, input: Record<string, unknown>): Promise<string> => {
      const res = await fetch(`${srv.baseUrl}/api/workflows/${wf}/runs`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { run_id: string }).run_id;
    };
    const ids = [await start('quick', { url: `${srv.baseUrl}/live` }), await start('never', {})];
    for (const id of ids) {
      for (let i = 0; i < 200; i++) {
        const run = (await srv.get(`/api/history/runs?run_id=${id}`)).body.items[0];
        if (run && run.status !== 'running' && run.status !== 'waiting') break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    // A drive is counted when it returns, a moment after its run's end is journaled (what the loop above waits for).
    let text = await scrape();
    for (let i = 0; i < 100 && Object.keys(samples(text, 'chainflow_runs_driven_total')).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await scrape();
    }
    expect(samples(text, 'chainflow_runs_total')).toEqual({
      '{workflow="quick",status="succeeded"}': 1, '{workflow="never",status="skipped"}': 1,
    });
    expect(samples(text, 'chainflow_step_duration_seconds_count')).toEqual({ '{workflow="quick",step_type="http_call"}': 1 });
    expect(samples(text, 'chainflow_step_duration_seconds_bucket')['{le="+Inf",workflow="quick",step_type="http_call"}']).toBe(1);
    // Per process (CONTRACT 10): the drives it ran, the leases it holds now, its claims of due runs and their latency.
    expect(samples(text, 'chainflow_runs_driven_total')).toEqual({
      '{workflow="quick",outcome="finished"}': 1, '{workflow="never",outcome="finished"}': 1,
    });
    expect(samples(text, 'chainflow_leases_held')).toEqual({ '': 0 });
    expect(samples(text, 'chainflow_leases_lost_total')).toEqual({});
    // The engine's loop claims at start and at each poll: its claims are counted, each one timed.
    expect(samples(text, 'chainflow_lease_claim_duration_seconds_count')['']).toBeGreaterThan(0);
    expect(samples(text, 'chainflow_leases_claimed_total')).toEqual({ '': 0 });
  });

  it('reads waiting runs, sends in flight and event lag from storage, grouped', async () => {
    expect(samples(await scrape(), 'chainflow_runs_waiting')).toEqual({});
    await srv.append([
      ...aRun({ runId: 'w-1', workflow: 'payouts', approval: {}, park: { waitKind: 'approval' } }),
      ...aRun({ runId: 'w-2', workflow: 'payouts', approval: {}, park: { waitKind: 'approval' } }),
      ...aRun({ runId: 'w-3', workflow: 'keeper', steps: [{ stepId: 'cool', stepType: 'delay', unfinished: true }], park: { waitKind: 'delay' } }),
      ...aRun({ runId: 's-1', workflow: 'payouts', send: { relayer: 'ops', status: 'submitted', txHash: `0x${'a'.repeat(64)}` }, status: 'running' }),
      ...aRun({ runId: 's-2', workflow: 'payouts', send: { relayer: 'ops', status: 'settled', outcome: 'confirmed' } }),
      ...aRun({ runId: 's-3', workflow: 'payouts', session: 'test', send: { relayer: 'cold', status: 'queued' } }),
      aWorkflowState({ workflow: 'on_deposit', trigger: 'event', cursorBlock: 90, headBlock: 100 }),
      aWorkflowState({ workflow: 'keeper', trigger: 'cron' }),
    ]);
    const text = await scrape();
    expect(samples(text, 'chainflow_runs_waiting')).toEqual({
      '{workflow="payouts",wait_kind="approval"}': 2, '{workflow="keeper",wait_kind="delay"}': 1,
    });
    // Settled sends and a test session's simulated one are not in flight.
    expect(samples(text, 'chainflow_sends_in_flight')).toEqual({ '{relayer="ops"}': 1 });
    expect(samples(text, 'chainflow_event_lag_blocks')).toEqual({ '{workflow="on_deposit"}': 10 });
    // Resumed, the run leaves the gauge at the next scrape.
    await srv.append([aResume('w-3', Date.now()), aResume('w-1', Date.now()), aPark('w-1', Date.now(), { waitKind: 'delay' })]);
    expect(samples(await scrape(), 'chainflow_runs_waiting')).toEqual({
      '{workflow="payouts",wait_kind="approval"}': 1, '{workflow="payouts",wait_kind="delay"}': 1,
    });
  });

  /** prom-client's own `nodejs_active_{handles,requests,resources}_total` gauges are the one lint CONTRACT 11 allows. */
  const ALLOWED = /^nodejs_active_\w+_total non-counter metrics should not have "_total" suffix$/;

  it('passes `promtool check metrics` (prom-client\'s own nodejs_active_*_total gauges aside), the server\'s page and the worker\'s', async () => {
    await srv.get('/api/history/runs?bogus=1');
    const pages = { server: await scrape(), worker: await workerMetricsRegistry(srv.root.container).metrics() };
    expect(pages.server).toContain('chainflow_runs_total{');
    expect(pages.server).toContain('chainflow_http_requests_total{');
    expect(pages.worker).toContain('chainflow_runs_waiting');
    for (const text of Object.values(pages)) {
      for (const series of ['chainflow_runs_driven_total', 'chainflow_leases_held ', 'chainflow_leases_claimed_total ', 'chainflow_lease_claim_duration_seconds_bucket']) {
        expect(text).toContain(series);
      }
    }
    for (const [page, text] of Object.entries(pages)) {
      const problems = promtoolProblems(text);
      expect({ page, problems: problems.filter((p) => !ALLOWED.test(p)) }).toEqual({ page, problems: [] });
      // The allowance is spent on what it names: prom-client still exports those three.
      expect({ page, allowed: problems.length }).toEqual({ page, allowed: 3 });
    }
  });

  it('promtool, as run here, finds what it refuses (a counter without _total, a label that does not parse)', () => {
    const bad = [
      '# HELP a_total Things', '# TYPE a_total counter', 'a_total{x="1"} 1', '# HELP b Bees', '# TYPE b gauge', 'b 2',
      '# HELP c A counter', '# TYPE c counter', 'c 1',
    ].join('\n');
    expect(promtoolProblems(`${bad}\n`)).toEqual(['c counter metrics should have "_total" suffix']);
    expect(promtoolProblems('e{bad-label="1"} 1\n')).toEqual([expect.stringMatching(/^error while linting: text format parsing error in line 1: expected '=' after label name/)]);
  });
});
