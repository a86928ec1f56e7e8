import type { Knex } from 'knex';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { migrationSource } from '../../../src/adapters/knex/migrations';
import { STEP_RUNS_TABLE } from '../../../src/adapters/knex/step-runs-store';
import { exportSteps } from '../../../src/application/history/timeline';
import { aFinish, aPark, aResume, aRun, FETCH_STEP, manyRuns, MINUTE, T0 } from '../../mothers/journal-events';
import { KNEX_STORES, type FreshStore } from '../../support/stores';

describe.each(KNEX_STORES)("the export's step runs on %s (step-runs-store)", (_name, freshStore) => {
  let store: FreshStore;
  let db: Knex;
  let writer: KnexJournalWriter;
  let runs: KnexRunRepository;

  beforeEach(async () => {
    store = await freshStore();
    db = await store.open();
    writer = new KnexJournalWriter(db);
    runs = new KnexRunRepository(db);
  });
  afterEach(() => store.close());

  /** More runs than a page of the backfill (500), and one that was parked on a step and resumed. */
  const journal = async (): Promise<string[]> => {
    const events = [
      ...manyRuns(620, { prefix: 'many', newest: T0 }),
      ...aRun({ runId: 'parked', at: T0 + MINUTE, steps: [FETCH_STEP, { stepId: 'wait', stepType: 'delay', unfinished: true }], park: { waitKind: 'delay' } }),
    ];
    await writer.append(events);
    await writer.append([aResume('parked', T0 + 2 * MINUTE), aPark('parked', T0 + 3 * MINUTE, { waitKind: 'event' })]);
    return events.flatMap((e) => (e.type === 'run.started' ? [e.run_id] : []));
  };

  it('a journal written before the table existed gets every run\'s step runs folded once, on migration', async () => {
    const ids = await journal();
    expect(ids.length).toBeGreaterThan(500);
    const kept = await runs.stepItemsOfRuns(ids);
    const expected = await Promise.all(ids.map(async (id) => JSON.stringify(exportSteps(id, await runs.stream(id))).slice(1, -1)));
    expect(kept.texts).toEqual(expected);

    await db.migrate.down({ migrationSource, name: '0009_export_step_runs' });
    await expect(db.raw(`SELECT * FROM ${STEP_RUNS_TABLE}`)).rejects.toThrow();
    await db.migrate.latest({ migrationSource });
    expect(await runs.stepItemsOfRuns(ids)).toEqual(kept);

    // And what is appended after the backfill picks up from it: the parked run's wait is closed by its end.
    await writer.append([aResume('parked', T0 + 4 * MINUTE), aFinish('parked', T0 + 5 * MINUTE)]);
    const [parked] = (await runs.stepItemsOfRuns(['parked'])).texts;
    expect(parked).toBe(JSON.stringify(exportSteps('parked', await runs.stream('parked'))).slice(1, -1));
    expect(parked).toContain(`"resumed_at":"${new Date(T0 + 4 * MINUTE).toISOString()}"`);
  });
});
