/**
 * The operator's log lines (CONTRACT 11) for runs and webhooks: one line per failed or dead-lettered run naming the
 * run, workflow, step, error kind and message (redacted), and one per refused webhook with the reason its sender is
 * never told. The send path's lines are asserted beside their scenarios (engine-send-step, engine-send-budgets,
 * sends-lanes), the provider failover in web3-chain.faults.
 */
import { CelExpressions } from '../../src/adapters/cel';
import { LosslessJson } from '../../src/adapters/json/exact-json';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import type { Engine } from '../../src/application/engine/engine';
import { ReceiveWebhook } from '../../src/application/engine/receive-webhook.use-case';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import { OperatorLog } from '../../src/application/operator-log';
import { HttpFailure } from '../../src/application/ports/http-client';
import { signPayload } from '../../src/domain/engine/webhook-signature';
import type { TriggerDefinition, WorkflowDefinition } from '../../src/domain/engine/workflow';
import { Redactor } from '../../src/domain/redactor';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { RecordingLogger } from '../fakes/recording-logger';
import { ScriptedHttpClient } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';
import { aDelay, anHttpCall, aWorkflow } from '../mothers/workflows';

const SECRET = 'sk-live-0123456789';
const HOOK_SECRET = 'whsec-payouts-hook';

function configOf(...workflows: WorkflowDefinition[]): ChainflowConfig {
  const entries: [string, WorkflowConfig][] = workflows.map((w) => [w.name, { name: w.name, budgets: [], definition: {}, engine: w }]);
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [SECRET, HOOK_SECRET],
  };
}

class Harness {
  readonly clock = new FixedClock(T0);
  readonly store = new InMemoryEngineStore();
  readonly journal = new InMemoryJournal({ schedule: this.store });
  readonly http = new ScriptedHttpClient();
  readonly logger = new RecordingLogger();
  readonly log = new OperatorLog(this.logger, new Redactor([SECRET, HOOK_SECRET]));
  private drive!: DriveRun;
  private start!: StartRun;

  constructor(...workflows: WorkflowDefinition[]) {
    this.configure(...workflows);
  }

  configure(...workflows: WorkflowDefinition[]): void {
    const catalog = new WorkflowCatalog(configOf(...workflows));
    const expressions = new CelExpressions();
    this.drive = new DriveRun(this.journal, this.journal, this.store, catalog, new StepRunners(this.http, expressions, this.clock), expressions, this.clock, undefined, undefined, undefined, this.log);
    this.start = new StartRun(catalog, this.journal, this.store, this.journal, this.clock);
  }

  async run(workflow: string): Promise<string> {
    const { runId } = await this.start.execute({ workflow, session: 'live', trigger: { kind: 'manual', summary: 'manual by test', payload: {} } });
    await this.tick();
    return runId;
  }

  async tick(): Promise<void> {
    for (const c of await this.store.claimDue('engine-a', this.clock.now(), this.clock.now() + 15_000, 100)) await this.drive.execute(c, 'engine-a');
  }
}

describe('the operator log', () => {
  it('a failed run is one error line with its run id, workflow, step, error kind and message, the secret redacted', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('quote', { retry: { attempts: 1, backoffMs: 1000, maxBackoffMs: 1000 } })] }));
    h.http.on('https://api.example/quote', new HttpFailure('network', `connect refused (key ${SECRET})`));
    const runId = await h.run('payouts');
    expect(h.logger.lines).toEqual([{ level: 'error', message: 'run failed', fields: {
      run_id: runId, workflow: 'payouts', step: 'quote', status: 'failed', error_kind: 'http_error', message: 'GET failed: connect refused (key <redacted>)',
    } }]);
  });

  it('a run that succeeds logs nothing', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('quote')] }));
    await h.run('payouts');
    expect(h.logger.lines).toEqual([]);
  });

  it('a dead-lettered run is one error line naming the step it was parked on', async () => {
    const h = new Harness(aWorkflow({ steps: [aDelay('wait', 1000), anHttpCall('after')] }));
    const runId = await h.run('payouts');
    h.configure(aWorkflow({ steps: [anHttpCall('after')] }));
    h.clock.advance(1000);
    await h.tick();
    expect(h.logger.lines).toEqual([{ level: 'error', message: 'run dead-lettered', fields: expect.objectContaining({
      run_id: runId, workflow: 'payouts', step: 'wait', status: 'dead_lettered', error_kind: 'definition_changed',
    }) }]);
  });

  describe('refused webhooks', () => {
    const hook = aWorkflow({ name: 'payouts', trigger: { kind: 'webhook', secret: HOOK_SECRET } as TriggerDefinition, steps: [anHttpCall('quote')] });
    const body = Buffer.from('{"amount":"5"}');
    const nowS = Math.floor(T0 / 1000);
    const receiver = (logger: RecordingLogger): ReceiveWebhook =>
      new ReceiveWebhook(new WorkflowCatalog(configOf(hook)), {} as Engine, new FixedClock(T0), new LosslessJson(), new OperatorLog(logger, new Redactor([HOOK_SECRET])));

    it.each([
      ['malformed header', 'payouts', 'v1=abc'],
      ['stale timestamp', 'payouts', `t=${nowS - 301},v1=${signPayload(HOOK_SECRET, nowS - 301, body)}`],
      ['bad signature', 'payouts', `t=${nowS},v1=${signPayload('another-secret', nowS, body)}`],
      ['unknown workflow', 'nope', `t=${nowS},v1=${signPayload(HOOK_SECRET, nowS, body)}`],
    ])('%s: one warn line with the reason; the sender is told no more than before', async (reason, workflow, signature) => {
      const logger = new RecordingLogger();
      const refused = await receiver(logger).execute({ workflow, signature, idempotencyKey: undefined, body }).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toMatch(reason === 'unknown workflow' ? /webhook trigger/ : /^bad signature$/);
      expect(logger.lines).toEqual([{ level: 'warn', message: 'webhook refused', fields: { workflow, reason } }]);
      expect(JSON.stringify(logger.lines)).not.toContain(HOOK_SECRET);
    });
  });
});
