/**
 * What the engine loop reports of its own process (CONTRACT 10): each drive and how it left the run, the leases it
 * holds, each claim of due runs (its latency and how many it took), and each lease another driver took over.
 */
import { CelExpressions } from '../../src/adapters/cel';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { Engine } from '../../src/application/engine/engine';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { Logger } from '../../src/application/ports/logger';
import type { SettlePendingReceipts } from '../../src/application/spend/settle-pending-receipts.use-case';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import { Redactor } from '../../src/domain/redactor';
import { CountingEngineMetrics } from '../fakes/counting-engine-metrics';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { ok, ScriptedHttpClient } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';
import { aDelay, anHttpCall, aWorkflow } from '../mothers/workflows';

const TTL = 15_000;

function harness(...workflows: WorkflowDefinition[]) {
  const clock = new FixedClock(T0);
  const store = new InMemoryEngineStore();
  const journal = new InMemoryJournal({ schedule: store });
  const http = new ScriptedHttpClient();
  const metrics = new CountingEngineMetrics();
  const entries: [string, WorkflowConfig][] = workflows.map((w) => [w.name, { name: w.name, budgets: [], definition: {}, engine: w }]);
  const config: ChainflowConfig = {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
    // A long poll: each start of the engine is one pass (start() runs the first at once).
    engine: { leaseTtlMs: TTL, pollMs: 3_600_000, concurrency: 4 },
  };
  const catalog = new WorkflowCatalog(config);
  const expressions = new CelExpressions();
  const drive = new DriveRun(journal, journal, store, catalog, new StepRunners(http, expressions, clock), expressions, clock, undefined, metrics);
  const start = new StartRun(catalog, journal, store, journal, clock);
  const receipts = { drain: async () => undefined } as unknown as SettlePendingReceipts;
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
  const engine = (): Engine => new Engine(config, store, drive, start, catalog, journal, { next: () => undefined } as never, receipts, clock, logger,
    new Redactor([]), undefined, undefined, undefined, undefined, undefined, metrics);
  /** One pass of a fresh engine: its claim, and `drives` more drives let run to their ends or parks before it stops. */
  const pass = async (drives = 0): Promise<void> => {
    const e = engine();
    const until = metrics.drives.length + drives;
    e.start();
    // stop() lets a drive go between step attempts: the drives this pass is about are awaited first.
    while (metrics.drives.length < until) await new Promise((resolve) => setImmediate(resolve));
    await e.stop(10_000);
  };
  const enqueue = (workflow: string) => start.execute({ workflow, session: 'live', trigger: { kind: 'manual', summary: 'manual by test' }, journalStart: true });
  return { clock, store, http, metrics, pass, enqueue, engine, start };
}

describe('engine process metrics', () => {
  it('reports each claim with the leases it gave, each drive with its outcome, and the leases held going up and back to 0', async () => {
    const h = harness(aWorkflow({ name: 'quick', steps: [anHttpCall('ping')] }), aWorkflow({ name: 'slow', steps: [aDelay('cool', 60_000)] }));
    h.http.on('https://api.example/ping', ok({}));
    await h.enqueue('quick');
    await h.enqueue('slow');
    await h.pass(2);
    expect(h.metrics.claims.map((c) => c.claimed)).toEqual([2]);
    expect(h.metrics.claims[0]!.seconds).toBeGreaterThanOrEqual(0);
    expect([...h.metrics.drives].sort((a, b) => a.workflow.localeCompare(b.workflow))).toEqual([
      { workflow: 'quick', outcome: 'finished' }, { workflow: 'slow', outcome: 'parked' },
    ]);
    expect(Math.max(...h.metrics.held)).toBe(2);
    expect(h.metrics.held.at(-1)).toBe(0);
    expect(h.metrics.lost).toEqual([]);
    // Nothing due: the next pass claims nothing and drives nothing.
    await h.pass();
    expect(h.metrics.claims.map((c) => c.claimed)).toEqual([2, 0]);
    expect(h.metrics.drives).toHaveLength(2);
  });

  it('counts a lease another driver took over as lost, and its drive as lost', async () => {
    const h = harness(aWorkflow({ name: 'payouts', steps: [anHttpCall('slow'), aDelay('wait', 3_600_000)] }));
    await h.enqueue('payouts');
    h.http.on('https://api.example/slow', async () => {
      // This process stalls in its call past its lease; another engine takes the run over.
      h.clock.advance(TTL + 1);
      await h.store.claimDue('engine-b', h.clock.now(), h.clock.now() + TTL, 1);
      return ok({ from: 'a' });
    });
    await h.pass(1);
    expect(h.metrics.drives).toEqual([{ workflow: 'payouts', outcome: 'lost' }]);
    expect(h.metrics.lost).toEqual(['payouts']);
    expect(h.metrics.held.at(-1)).toBe(0);
  });

  it("looks again when another process's lease runs out, not at its next poll: a dead process's run is taken over then", async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const h = harness(aWorkflow({ name: 'quick', steps: [anHttpCall('ping')] }));
      h.http.on('https://api.example/ping', ok({}));
      // Held by a process that died: its lease ends in 2 s; this engine polls once an hour.
      await h.start.execute({ workflow: 'quick', session: 'live', trigger: { kind: 'manual', summary: 'manual by test' }, owner: { id: 'dead', leaseUntil: T0 + 2_000 }, journalStart: true });
      const e = h.engine();
      e.start();
      while (h.metrics.claims.length < 1) await new Promise((resolve) => setImmediate(resolve));
      expect(h.metrics.claims.map((c) => c.claimed)).toEqual([0]);
      h.clock.advance(2_100);
      await jest.advanceTimersByTimeAsync(2_100);
      while (h.metrics.drives.length < 1) await new Promise((resolve) => setImmediate(resolve));
      expect(h.metrics.claims.map((c) => c.claimed)).toEqual([0, 1]);
      expect(h.metrics.drives).toEqual([{ workflow: 'quick', outcome: 'finished' }]);
      await e.stop(1_000);
    } finally {
      jest.useRealTimers();
    }
  });
});
