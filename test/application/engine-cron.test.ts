/**
 * Cron in the engine (CONTRACT 8.7): the configured schedule is the schedule (a changed one takes effect at the
 * engine's next start), and a tick's move and its run are one write (never lost, never twice).
 */
import { CelExpressions } from '../../src/adapters/cel';
import { CronerCalendar } from '../../src/adapters/cron/croner-calendar';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { Engine } from '../../src/application/engine/engine';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { RunToEnqueue } from '../../src/application/ports/engine-store';
import type { Logger } from '../../src/application/ports/logger';
import type { SettlePendingReceipts } from '../../src/application/spend/settle-pending-receipts.use-case';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import { Redactor } from '../../src/domain/redactor';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { ScriptedHttpClient } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';
import { anHttpCall, aWorkflow } from '../mothers/workflows';

const EVERY_5_MIN = '*/5 * * * *';
const DAILY = '0 0 * * *';

const keeper = (schedule: string): WorkflowDefinition => aWorkflow({ name: 'keeper', trigger: { kind: 'cron', schedule }, steps: [anHttpCall('ping')] });

/** Fails the enqueue of a cron tick's run once, as a process dying between a tick's move and its run would. */
class FailingOnce extends InMemoryEngineStore {
  failNext = false;

  override async enqueue(run: RunToEnqueue, owner: string, leaseUntil: number): Promise<{ runId: string; created: boolean }> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the process died here');
    }
    return super.enqueue(run, owner, leaseUntil);
  }
}

class CronHarness {
  readonly clock = new FixedClock(T0);
  readonly store = new FailingOnce();
  readonly journal = new InMemoryJournal({ schedule: this.store });
  readonly calendar = new CronerCalendar();
  readonly warnings: string[] = [];

  engine(workflow: WorkflowDefinition): Engine {
    const entries: [string, WorkflowConfig][] = [[workflow.name, { name: workflow.name, budgets: [], definition: {}, engine: workflow }]];
    const config: ChainflowConfig = {
      server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
      networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
      // A long poll: each test looks at one pass (start() runs the first at once).
      engine: { leaseTtlMs: 15_000, pollMs: 3_600_000, concurrency: 4 },
    };
    const catalog = new WorkflowCatalog(config);
    const expressions = new CelExpressions();
    const drive = new DriveRun(this.journal, this.journal, this.store, catalog, new StepRunners(new ScriptedHttpClient(), expressions, this.clock), expressions, this.clock);
    const start = new StartRun(catalog, this.journal, this.store, this.journal, this.clock);
    const receipts = { drain: async () => undefined } as unknown as SettlePendingReceipts;
    const logger: Logger = { info: () => undefined, warn: (m: string) => this.warnings.push(m), error: () => undefined } as unknown as Logger;
    return new Engine(config, this.store, drive, start, catalog, this.journal, this.calendar, receipts, this.clock, logger, new Redactor([]));
  }

  /** One start of the engine: its first pass (cron, claims), and the runs it drove, to their ends. */
  async pass(workflow: WorkflowDefinition): Promise<void> {
    const engine = this.engine(workflow);
    engine.start();
    await engine.stop(10_000);
  }

  async runs(): Promise<string[]> {
    return (await this.journal.list({}, { limit: 100 })).map((r) => r.triggerKind);
  }
}

describe('Engine cron', () => {
  it('a changed schedule takes effect at the next start: the stored next tick is recomputed from it', async () => {
    const h = new CronHarness();
    await h.pass(keeper(DAILY));
    const daily = h.calendar.next(DAILY, T0)!;
    expect(await h.store.cronNext('keeper')).toBe(daily);
    // Restarted with a new schedule: the next tick is the new schedule's, not the one the old schedule left.
    await h.pass(keeper(EVERY_5_MIN));
    const fiveMin = h.calendar.next(EVERY_5_MIN, T0)!;
    expect(fiveMin).toBeLessThan(daily);
    expect(await h.store.cronNext('keeper')).toBe(fiveMin);
    // The same schedule again changes nothing; the tick then fires once, at its time.
    await h.pass(keeper(EVERY_5_MIN));
    expect(await h.store.cronNext('keeper')).toBe(fiveMin);
    h.clock.advance(fiveMin - h.clock.now());
    await h.pass(keeper(EVERY_5_MIN));
    await h.pass(keeper(EVERY_5_MIN));
    expect(await h.runs()).toEqual(['cron']);
    expect(await h.store.cronNext('keeper')).toBe(h.calendar.next(EVERY_5_MIN, fiveMin));
  });

  it('a tick whose run could not be recorded is not moved on: it fires at the next pass, once', async () => {
    const h = new CronHarness();
    await h.pass(keeper(EVERY_5_MIN));
    const due = (await h.store.cronNext('keeper'))!;
    h.clock.advance(due - h.clock.now());
    h.store.failNext = true;
    await h.pass(keeper(EVERY_5_MIN));
    expect(h.warnings).toEqual(['workflow keeper: cron tick not started']);
    expect(await h.runs()).toEqual([]);
    expect(await h.store.cronNext('keeper')).toBe(due);
    await h.pass(keeper(EVERY_5_MIN));
    await h.pass(keeper(EVERY_5_MIN));
    expect(await h.runs()).toEqual(['cron']);
    expect(await h.store.cronNext('keeper')).toBeGreaterThan(due);
  });
});
