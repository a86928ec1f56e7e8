/**
 * `wait_event` steps (CONTRACT 8.6) on fakes: the run parks (`event`) until a log in a block after the head at the
 * step's start matches `where` (earlier logs never match), then the step's output is the decoded log; no match before
 * the timeout fails the step `event_timeout`.
 */
import { CelExpressions } from '../../src/adapters/cel';
import type { ChainflowConfig, NetworkConfig, WorkflowConfig } from '../../src/application/config';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WaitEventStepRunner } from '../../src/application/engine/wait-event-step';
import { WatchEventWaits } from '../../src/application/engine/watch-event-waits.use-case';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { WaitEventStep, WorkflowDefinition } from '../../src/domain/engine/workflow';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryChainLogs } from '../fakes/in-memory-chain-logs';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryEventWaits } from '../fakes/in-memory-event-waits';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { RecordingLogger } from '../fakes/recording-logger';
import { ScriptedHttpClient } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';
import { aWorkflow } from '../mothers/workflows';

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const TRANSFER = 'Transfer(address indexed from, address indexed to, uint256 value)';
const ZERO = `0x${'0'.repeat(40)}`;
const ALICE = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const BOB = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const HOUR = 3_600_000;

const waitStep: WaitEventStep = {
  id: 'paid', type: 'wait_event', network: 'devnet', addresses: [TOKEN], event: TRANSFER, where: 'log.to == trigger.payload.to',
  confirmations: 1, timeoutMs: HOUR, skipInTest: false, retry: { attempts: 1, backoffMs: 1000, maxBackoffMs: 60_000 },
};

class Harness {
  readonly clock = new FixedClock(T0);
  readonly chain = new InMemoryChainLogs();
  readonly store = new InMemoryEngineStore();
  readonly journal = new InMemoryJournal({ schedule: this.store });
  readonly waits = new InMemoryEventWaits();
  readonly logger = new RecordingLogger();
  readonly workflow: WorkflowDefinition = aWorkflow({ name: 'settle', steps: [waitStep] });
  readonly start: StartRun;
  readonly drive: DriveRun;
  readonly watcher: WatchEventWaits;

  constructor() {
    const network: NetworkConfig = { name: 'devnet', chainId: 31337, nativeSymbol: 'ETH', rpc: ['http://fake/'], replaceAfterMs: 60_000, confirmations: 1 };
    const entries: [string, WorkflowConfig][] = [['settle', { name: 'settle', budgets: [], definition: {}, engine: this.workflow }]];
    const config: ChainflowConfig = {
      server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
      networks: new Map([['devnet', network]]), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
    };
    const catalog = new WorkflowCatalog(config);
    const expressions = new CelExpressions();
    const runner = new WaitEventStepRunner(config, this.chain, this.waits, this.clock);
    const steps = new StepRunners(new ScriptedHttpClient(), expressions, this.clock, undefined, undefined, undefined, undefined, runner);
    this.start = new StartRun(catalog, this.journal, this.store, this.journal, this.clock);
    this.drive = new DriveRun(this.journal, this.journal, this.store, catalog, steps, expressions, this.clock);
    this.watcher = new WatchEventWaits(config, catalog, this.chain, this.waits, this.store, expressions, this.clock, this.logger);
  }

  /** Drives every run due now to its park or end. */
  async driveDue(): Promise<void> {
    for (const claim of await this.store.claimDue('engine', this.clock.now(), this.clock.now() + 60_000, 10)) await this.drive.execute(claim, 'engine');
  }

  async run(runId: string): Promise<{ status: string; waitKind: string | null }> {
    const run = (await this.journal.get(runId))!;
    return { status: run.status, waitKind: run.waitKind ?? null };
  }
}

describe('wait_event steps', () => {
  it('parks until a later log matches where, and finishes the step with the decoded log', async () => {
    const h = new Harness();
    h.chain.mine(3);
    // Before the step starts: a log that would match, but earlier logs never do.
    h.chain.emit(TOKEN, TRANSFER, { from: ZERO, to: ALICE, value: '1' });
    const { runId } = await h.start.execute({ workflow: 'settle', trigger: { kind: 'manual', summary: 'manual by test', payload: { to: ALICE } } });
    await h.driveDue();
    expect(await h.run(runId)).toEqual({ status: 'waiting', waitKind: 'event' });
    h.chain.emit(TOKEN, TRANSFER, { from: ZERO, to: BOB, value: '2' });
    h.chain.emit(TOKEN, TRANSFER, { from: ZERO, to: ALICE, value: '3' });
    h.chain.emit(TOKEN, TRANSFER, { from: ZERO, to: ALICE, value: '4' });
    await h.watcher.execute();
    await h.driveDue();
    expect(await h.run(runId)).toEqual({ status: 'succeeded', waitKind: null });
    const finished = (await h.journal.stream(runId)).find((e) => e.type === 'step.finished');
    expect(finished).toMatchObject({ status: 'succeeded', output: { from: ZERO, to: ALICE, value: '3' } });
    expect(await h.waits.pending()).toEqual([]);
  });

  it('fails the step event_timeout when no log matched before its timeout', async () => {
    const h = new Harness();
    const { runId } = await h.start.execute({ workflow: 'settle', trigger: { kind: 'manual', summary: 'manual by test', payload: { to: ALICE } } });
    await h.driveDue();
    h.chain.emit(TOKEN, TRANSFER, { from: ZERO, to: BOB, value: '2' });
    await h.watcher.execute();
    await h.driveDue();
    expect(await h.run(runId)).toEqual({ status: 'waiting', waitKind: 'event' });
    h.clock.advance(HOUR);
    await h.driveDue();
    const run = (await h.journal.get(runId))!;
    expect(run.status).toBe('failed');
    expect(run.errorKind).toBe('event_timeout');
  });
});
