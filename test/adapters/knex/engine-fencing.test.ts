/**
 * Fencing tokens on the real storage (CONTRACT 8.7): two drivers of one database (SQLite, PostgreSQL), the first
 * stalls in a step past its lease's TTL, the second takes the run over; the first's next write is refused and it
 * drives nothing more.
 */
import type { Knex } from 'knex';
import { CelExpressions } from '../../../src/adapters/cel';
import { KnexEngineStore } from '../../../src/adapters/knex/knex-engine.store';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { KnexWorkflowStates } from '../../../src/adapters/knex/knex-workflow-states';
import type { ChainflowConfig, WorkflowConfig } from '../../../src/application/config';
import { DriveRun, type DriveOutcome } from '../../../src/application/engine/drive-run.use-case';
import { StartRun } from '../../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../../src/application/workflow-catalog';
import type { ClaimedRun } from '../../../src/application/ports/engine-store';
import { FixedClock } from '../../fakes/fixed-clock';
import { ok, ScriptedHttpClient } from '../../fakes/scripted-http-client';
import { T0 } from '../../mothers/journal-events';
import { aDelay, anHttpCall, aWorkflow } from '../../mothers/workflows';
import { KNEX_STORES, type FreshStore } from '../../support/stores';

/**
 * Short, because on PostgreSQL the lease runs out on the database's clock (CONTRACT 10): the stall below lasts past
 * it in real time as well as on the engine's clock.
 */
const TTL = 300;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(KNEX_STORES)('fenced leases on %s', (_name, freshStore) => {
  let store0: FreshStore;
  let db: Knex;
  beforeEach(async () => {
    store0 = await freshStore();
    db = await store0.open();
  });
  afterEach(() => store0.close());

  it('the driver that lost its lease mid-step has its next write refused; the new holder\'s moves are the only ones after', async () => {
    const workflow = aWorkflow({ steps: [anHttpCall('slow'), aDelay('wait', 3_600_000)] });
    const entries: [string, WorkflowConfig][] = [[workflow.name, { name: workflow.name, budgets: [], definition: {}, engine: workflow }]];
    const config = {
      server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
      networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
    } as ChainflowConfig;
    const clock = new FixedClock(T0);
    const store = new KnexEngineStore(db);
    const journal = new KnexJournalWriter(db);
    const runs = new KnexRunRepository(db);
    const catalog = new WorkflowCatalog(config);
    const expressions = new CelExpressions();
    const http = new ScriptedHttpClient();
    const drive = new DriveRun(journal, runs, store, catalog, new StepRunners(http, expressions, clock), expressions, clock);
    const { runId } = await new StartRun(catalog, new KnexWorkflowStates(db), store, journal, clock)
      .execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual' } });

    const [first] = await store.claimDue('engine-a', clock.now(), clock.now() + TTL, 1);
    let second: ClaimedRun[] = [];
    let secondOutcome: DriveOutcome | undefined;
    http.on('https://api.example/slow', async () => {
      clock.advance(TTL + 1);
      await sleep(TTL + 50);
      second = await store.claimDue('engine-b', clock.now(), clock.now() + TTL, 1);
      secondOutcome = await drive.execute(second[0]!, 'engine-b');
      return ok({ from: 'a' });
    }, ok({ from: 'b' }));

    expect(await drive.execute(first!, 'engine-a')).toBe('lost');
    expect(secondOutcome).toBe('parked');
    expect(second[0]!.fence).toBeGreaterThan(first!.fence);
    const events = await runs.stream(runId);
    const steps = events.flatMap((e) => (e.type === 'step.started' ? [`${e.step_id}#${e.attempt}`] : e.type === 'step.finished' ? [`${e.status}`] : []));
    expect(steps).toEqual(['slow#1', 'slow#2', 'succeeded', 'wait#1']);
    expect(events.filter((e) => e.type === 'step.finished')).toEqual([expect.objectContaining({ output: { status: 200, body: { from: 'b' } } })]);
    expect((await runs.get(runId))!.status).toBe('waiting');
  });
});
