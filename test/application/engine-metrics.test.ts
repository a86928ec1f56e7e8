/**
 * What the engine reports to EngineMetrics (CONTRACT 11): each run this process ends, with its workflow and end
 * status (a cancel included), and each step attempt it brings to an end, timed from the attempt's journaled start
 * so that a step finished after a park counts its wait; skipped steps and parks count nothing.
 */
import { CelExpressions } from '../../src/adapters/cel';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { CancelRun } from '../../src/application/engine/cancel-run.use-case';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import { CountingEngineMetrics } from '../fakes/counting-engine-metrics';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { ok, ScriptedHttpClient, status } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';
import { aDelay, anApproval, anHttpCall, aWorkflow } from '../mothers/workflows';

function configOf(...workflows: WorkflowDefinition[]): ChainflowConfig {
  const entries: [string, WorkflowConfig][] = workflows.map((w) => [w.name, { name: w.name, budgets: [], definition: {}, engine: w }]);
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
  };
}

function harness(...workflows: WorkflowDefinition[]) {
  const clock = new FixedClock(T0);
  const store = new InMemoryEngineStore();
  const journal = new InMemoryJournal({ schedule: store });
  const http = new ScriptedHttpClient();
  const expressions = new CelExpressions();
  const metrics = new CountingEngineMetrics();
  const catalog = new WorkflowCatalog(configOf(...workflows));
  const drive = new DriveRun(journal, journal, store, catalog, new StepRunners(http, expressions, clock), expressions, clock, undefined, metrics);
  const start = new StartRun(catalog, journal, store, journal, clock);
  const tick = async (): Promise<void> => {
    for (const c of await store.claimDue('engine-a', clock.now(), clock.now() + 15_000, 100)) await drive.execute(c, 'engine-a');
  };
  const run = async (workflow: string, payload: Record<string, unknown> = {}): Promise<string> => {
    const { runId } = await start.execute({ workflow, session: 'live', trigger: { kind: 'manual', summary: 'manual by test', payload: payload as never } });
    await tick();
    return runId;
  };
  return { clock, store, journal, http, metrics, run, tick };
}

describe('engine metrics', () => {
  it('counts each run it ends by workflow and status, and each step attempt it ran, not skipped ones', async () => {
    const h = harness(
      aWorkflow({ name: 'payouts', steps: [anHttpCall('quote'), anHttpCall('maybe', { if: 'false' })] }),
      aWorkflow({ name: 'guarded', conditions: [{ name: 'positive', if: 'int(trigger.payload.amount) > 0' }], steps: [anHttpCall('a')] }),
      aWorkflow({ name: 'broken', steps: [anHttpCall('bad', { retry: { attempts: 1, backoffMs: 1000, maxBackoffMs: 1000 } })] }),
    );
    h.http.on('https://api.example/quote', ok({}));
    h.http.on('https://api.example/bad', status(404));
    await h.run('payouts');
    await h.run('guarded', { amount: 0 });
    await h.run('broken');
    expect(h.metrics.ends).toEqual([
      { workflow: 'payouts', status: 'succeeded' }, { workflow: 'guarded', status: 'skipped' }, { workflow: 'broken', status: 'failed' },
    ]);
    expect(h.metrics.steps.map(({ workflow, stepType }) => [workflow, stepType])).toEqual([['payouts', 'http_call'], ['broken', 'http_call']]);
  });

  it('times a step finished after a park from its journaled start: a delay of 60 s counts 60 s, once', async () => {
    const h = harness(aWorkflow({ steps: [aDelay('cool', 60_000)] }));
    await h.run('payouts');
    expect(h.metrics.steps).toEqual([]);
    expect(h.metrics.ends).toEqual([]);
    h.clock.advance(60_000);
    await h.tick();
    expect(h.metrics.steps).toEqual([{ workflow: 'payouts', stepType: 'delay', seconds: 60 }]);
    expect(h.metrics.ends).toEqual([{ workflow: 'payouts', status: 'succeeded' }]);
  });

  it('counts a cancel as a run this process ended', async () => {
    const h = harness(aWorkflow({ steps: [anApproval('approve')] }));
    const runId = await h.run('payouts');
    await new CancelRun(h.journal, h.journal, h.journal, h.store, h.clock, h.metrics).execute(runId, 'carol');
    expect(h.metrics.ends).toEqual([{ workflow: 'payouts', status: 'cancelled' }]);
  });
});
