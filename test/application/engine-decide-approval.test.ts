/**
 * Deciding approvals as an operator types them (issue 30): a run id is taken when its run has exactly one pending
 * approval (the CLI's `approvals approve RUN_ID`), else the refusal says that ids are `<run_id>.<step_id>` and which
 * are pending; an approval a cancel closed reads as cancelled, not "already rejected".
 */
import { CelExpressions } from '../../src/adapters/cel';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { CancelRun } from '../../src/application/engine/cancel-run.use-case';
import { DecideApproval } from '../../src/application/engine/decide-approval.use-case';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import { ConflictError, NotFoundError } from '../../src/domain/errors';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { ScriptedHttpClient } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';
import { anApproval, anHttpCall, aWorkflow } from '../mothers/workflows';

class Harness {
  readonly clock = new FixedClock(T0);
  readonly store = new InMemoryEngineStore();
  readonly journal = new InMemoryJournal({ schedule: this.store });
  readonly decide = new DecideApproval(this.journal, this.journal, this.clock);
  private readonly drive: DriveRun;
  private readonly start: StartRun;

  constructor(workflow: WorkflowDefinition) {
    const entries: [string, WorkflowConfig][] = [[workflow.name, { name: workflow.name, budgets: [], definition: {}, engine: workflow }]];
    const config: ChainflowConfig = {
      server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
      networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
    };
    const catalog = new WorkflowCatalog(config);
    const expressions = new CelExpressions();
    this.drive = new DriveRun(this.journal, this.journal, this.store, catalog, new StepRunners(new ScriptedHttpClient(), expressions, this.clock), expressions, this.clock);
    this.start = new StartRun(catalog, this.journal, this.store, this.journal, this.clock);
  }

  async run(): Promise<string> {
    const { runId } = await this.start.execute({ workflow: 'payouts', session: 'live', trigger: { kind: 'manual', summary: 'manual by test', payload: {} } });
    await this.tick();
    return runId;
  }

  async tick(): Promise<void> {
    for (const c of await this.store.claimDue('engine-a', this.clock.now(), this.clock.now() + 15_000, 100)) await this.drive.execute(c, 'engine-a');
  }
}

describe('DecideApproval by the ids an operator types', () => {
  it('a run id with exactly one pending approval decides that approval (orRunId); the API\'s approval ids only do not take it', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve'), anHttpCall('pay')] }));
    const runId = await h.run();
    await expect(h.decide.execute({ approvalId: runId, decision: 'approved', by: 'alice' })).rejects.toThrow(NotFoundError);
    const decided = await h.decide.execute({ approvalId: runId, orRunId: true, decision: 'approved', by: 'alice' });
    expect(decided).toMatchObject({ approval_id: `${runId}.approve`, run_id: runId, status: 'approved', decided_by: 'alice' });
    await h.tick();
    expect((await h.journal.get(runId))!.status).toBe('succeeded');
  });

  it('a run with several pending approvals is refused naming the id format and the pending ids', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve'), anHttpCall('pay')] }));
    const runId = await h.run();
    // A second pending approval of the same run, as a journal from elsewhere may hold.
    await h.journal.append([{ type: 'approval.requested', at: new Date(T0).toISOString(), approval_id: `${runId}.second`, run_id: runId, step_run_id: `${runId}.second`, message: 'again?' } as never]);
    const refused = await h.decide.execute({ approvalId: runId, orRunId: true, decision: 'approved', by: 'alice' }).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as Error).message).toBe(`run ${runId} has 2 pending approvals; approval ids are <run_id>.<step_id>: ${runId}.approve, ${runId}.second`);
  });

  it('an id that is neither an approval nor a run says how approval ids are made', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve')] }));
    await h.run();
    await expect(h.decide.execute({ approvalId: 'r-nope', orRunId: true, decision: 'approved', by: 'alice' }))
      .rejects.toThrow('approval not found; approval ids are <run_id>.<step_id>');
  });

  it('an approval closed by its run\'s cancel reads as cancelled, by whom, not "already rejected"; by its id or its run\'s', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve'), anHttpCall('pay')] }));
    const runId = await h.run();
    await new CancelRun(h.journal, h.journal, h.journal, h.store, h.clock).execute(runId, 'carol');
    for (const approvalId of [`${runId}.approve`, runId]) {
      await expect(h.decide.execute({ approvalId, orRunId: true, decision: 'approved', by: 'alice' }))
        .rejects.toThrow(new ConflictError('approval closed: its run was cancelled by carol'));
    }
  });

  it('an approval rejected by a person still reads "already rejected"', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve'), anHttpCall('pay')] }));
    const runId = await h.run();
    await h.decide.execute({ approvalId: `${runId}.approve`, decision: 'rejected', by: 'bob', reason: 'wrong address' });
    await expect(h.decide.execute({ approvalId: `${runId}.approve`, decision: 'approved', by: 'alice' })).rejects.toThrow('approval already rejected');
  });
});
