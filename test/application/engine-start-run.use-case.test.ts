/**
 * Manual runs with an Idempotency-Key (CONTRACT 8.7): the same key starts at most one run of a workflow, decided in
 * storage, so two processes racing with one key start one run; a bad key is refused naming its field.
 */
import { KnexEngineStore } from '../../src/adapters/knex/knex-engine.store';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { StartRun, type StartRunRequest } from '../../src/application/engine/start-run.use-case';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { EngineStore } from '../../src/application/ports/engine-store';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import { ConflictError, InvalidInputError } from '../../src/domain/errors';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { aWorkflowState, T0 } from '../mothers/journal-events';
import { anHttpCall, aWorkflow } from '../mothers/workflows';
import { KNEX_STORES } from '../support/stores';

function catalogOf(...workflows: WorkflowDefinition[]): WorkflowCatalog {
  const entries: [string, WorkflowConfig][] = workflows.map((w) => [w.name, { name: w.name, budgets: [], definition: {}, engine: w }]);
  return new WorkflowCatalog({
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
  } as ChainflowConfig);
}

const catalog = catalogOf(aWorkflow({ name: 'sweep', steps: [anHttpCall('a')] }), aWorkflow({ name: 'other', steps: [anHttpCall('a')] }));
const starter = (store: EngineStore, journal = new InMemoryJournal(), clock = new FixedClock(T0)): StartRun => new StartRun(catalog, journal, store, journal, clock);
const manual = (workflow: string, idempotencyKey?: string, session: 'live' | 'test' = 'live'): StartRunRequest =>
  ({ workflow, session, trigger: { kind: 'manual', summary: 'manual by test' }, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) });

describe('StartRun with an Idempotency-Key', () => {
  it('the same key starts one run and answers its id; other keys, other workflows, a test session and no key start new runs', async () => {
    const journal = new InMemoryJournal();
    const start = starter(new InMemoryEngineStore(), journal);
    const first = await start.execute(manual('sweep', 'payout-2026-11-26'));
    expect(first.created).toBe(true);
    expect(await start.execute(manual('sweep', ' payout-2026-11-26 '))).toEqual({ runId: first.runId, created: false, start: [] });
    const others = [
      await start.execute(manual('sweep', 'payout-2026-11-27')),
      await start.execute(manual('other', 'payout-2026-11-26')),
      // A test run never answers for a live one (nor the reverse): the operator would take a simulation for a payment.
      await start.execute(manual('sweep', 'payout-2026-11-26', 'test')),
      await start.execute(manual('sweep')),
      await start.execute(manual('sweep')),
    ];
    expect(others.map((o) => o.created)).toEqual([true, true, true, true, true]);
    expect(new Set([first.runId, ...others.map((o) => o.runId)]).size).toBe(6);
    // A repeat journals nothing: one run.started per run.
    expect((await journal.stream(first.runId)).filter((e) => e.type === 'run.started')).toHaveLength(1);
  });

  it('refuses an empty, overlong or unprintable key naming it, and starts nothing', async () => {
    const store = new InMemoryEngineStore();
    const start = starter(store);
    for (const key of ['', '   ', 'k'.repeat(201), 'tab\there', 'caf\u00e9']) {
      await expect(start.execute(manual('sweep', key))).rejects.toThrow(InvalidInputError);
      await expect(start.execute(manual('sweep', key))).rejects.toThrow(/^idempotency key: must be 1 to 200 printable ASCII characters$/);
    }
    expect(store.scheduled()).toEqual([]);
    expect((await start.execute(manual('sweep', 'k'.repeat(200)))).created).toBe(true);
  });

  it.each(KNEX_STORES)('two processes racing with one key on one %s database start one run', async (_name, freshStore) => {
    const store = await freshStore();
    try {
      const [first, second] = [await store.open(), await store.open()];
      const a = starter(new KnexEngineStore(first));
      const b = starter(new KnexEngineStore(second));
      const results = await Promise.all([a, b, a, b].map((s) => s.execute(manual('sweep', 'race-1'))));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.runId)).size).toBe(1);
      expect(Number((await first('engine_runs').count({ n: '*' }))[0]!.n)).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('paused, a repeated key or delivery still answers the run it started (paused or not); a new one is refused 409', async () => {
    const journal = new InMemoryJournal();
    const store = new InMemoryEngineStore();
    const start = starter(store, journal);
    const keyed = await start.execute(manual('sweep', 'payout-2026-11-26'));
    const delivered = await start.execute({ ...manual('sweep'), trigger: { kind: 'webhook', summary: 'POST /hooks/sweep' }, dedupeKeys: ['sweep:sig:1'] });
    await journal.append([aWorkflowState({ workflow: 'sweep', paused: true })]);

    expect(await start.execute(manual('sweep', 'payout-2026-11-26'))).toEqual({ runId: keyed.runId, created: false, start: [] });
    expect(await start.execute({ ...manual('sweep'), dedupeKeys: ['sweep:sig:1'] })).toEqual({ runId: delivered.runId, created: false, start: [] });
    for (const request of [manual('sweep', 'payout-2026-11-27'), manual('sweep'), { ...manual('sweep'), dedupeKeys: ['sweep:sig:2'] }]) {
      await expect(start.execute(request)).rejects.toThrow(ConflictError);
    }
    // The paused workflow's test runs are not refused, and a live run's key never answers for one.
    expect((await start.execute(manual('sweep', 'payout-2026-11-26', 'test'))).created).toBe(true);
    expect(store.scheduled()).toHaveLength(3);
  });
});
