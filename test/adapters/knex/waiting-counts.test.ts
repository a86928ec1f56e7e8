/**
 * The runs waiting per workflow (the overview's `runs_waiting`), kept by triggers on `runs` in the statement that
 * changes a run: SQLite's one row per workflow (migration 0008), PostgreSQL's one per workflow and backend (0026,
 * summed; rows of ended backends folded into slot 0). On both stores the overview must equal a fresh count of the
 * runs, whoever wrote them; on PostgreSQL two writers parking and waking runs of the same workflows at once must
 * neither wait on each other's counts nor deadlock, and a fold must keep every sum.
 */
import type { Knex } from 'knex';
import { KnexHistoryRepository } from '../../../src/adapters/knex/knex-history.repository';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRetentionRepository } from '../../../src/adapters/knex/knex-retention.repository';
import { migrationSource } from '../../../src/adapters/knex/migrations';
import { FOLD_LOCK_KEY, foldWaitingCounts } from '../../../src/adapters/postgres/pg-waiting-fold';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { aFinish, aPark, aResume, aRun, HOUR, MINUTE, T0 } from '../../mothers/journal-events';
import { freshPostgresStore, KNEX_STORES, type FreshStore } from '../../support/stores';

type Counts = Record<string, number>;

/** What the overview says is waiting, per workflow (workflows with none left out). */
async function overview(db: Knex): Promise<Counts> {
  const rows = await new KnexHistoryRepository(db).listWorkflows([], 1000);
  return Object.fromEntries(rows.filter((r) => r.runsWaiting !== 0).map((r) => [r.workflow, r.runsWaiting]));
}

/** A fresh count of the runs waiting now, per workflow. */
async function recount(db: Knex): Promise<Counts> {
  const rows = (await db('runs').select('workflow').count({ n: '*' }).where({ status: 'waiting' }).groupBy('workflow')) as Array<{ workflow: string; n: unknown }>;
  return Object.fromEntries(rows.map((r) => [r.workflow, Number(r.n)]));
}

async function expectExact(db: Knex): Promise<Counts> {
  const counted = await recount(db);
  expect(await overview(db)).toEqual(counted);
  return counted;
}

const parked = (runId: string, workflow: string, at: number): JournalEvent[] => aRun({ runId, workflow, at, steps: [], park: { waitKind: 'delay' } });

describe.each(KNEX_STORES)('waiting counts on %s', (_name, freshStore) => {
  let store: FreshStore;
  let db: Knex;
  let writer: KnexJournalWriter;
  beforeEach(async () => {
    store = await freshStore();
    db = await store.open();
    writer = new KnexJournalWriter(db);
  });
  afterEach(() => store.close());

  it('equal a fresh count after inserts, parks, wakes, finishes, a move to another workflow and retention deletes', async () => {
    await writer.append([
      ...parked('old-1', 'payouts', T0 - 2 * HOUR), ...parked('old-2', 'keeper', T0 - 2 * HOUR),
      ...parked('p1', 'payouts', T0), ...parked('p2', 'payouts', T0 + MINUTE), ...parked('k1', 'keeper', T0 + 2 * MINUTE),
      ...aRun({ runId: 'r1', workflow: 'keeper', at: T0 + 3 * MINUTE, steps: [], status: 'running' }),
      ...aRun({ runId: 'done', workflow: 'payouts', at: T0 + 4 * MINUTE }),
    ]);
    expect(await expectExact(db)).toEqual({ payouts: 3, keeper: 2 });
    // Woken, parked again, finished from waiting; a running run parked; all in one transaction.
    await writer.append([aResume('p1', T0 + HOUR), aPark('p1', T0 + HOUR + 1, { waitKind: 'delay' }), aFinish('p2', T0 + HOUR), aPark('r1', T0 + HOUR, { waitKind: 'tx' })]);
    expect(await expectExact(db)).toEqual({ payouts: 2, keeper: 3 });
    await writer.append([aResume('k1', T0 + 2 * HOUR)]);
    expect(await expectExact(db)).toEqual({ payouts: 2, keeper: 2 });
    // Any writer of the table keeps them: a waiting run moved to another workflow by hand, a finished one parked by hand.
    await db('runs').where({ run_id: 'r1' }).update({ workflow: 'payouts' });
    await db('runs').where({ run_id: 'done' }).update({ status: 'waiting', parked_at: T0 + 3 * HOUR });
    expect(await expectExact(db)).toEqual({ payouts: 4, keeper: 1 });
    await new KnexRetentionRepository(db).pruneBefore(T0 - HOUR);
    expect(await expectExact(db)).toEqual({ payouts: 3 });
  });

  it('equal a fresh count after an import of many batches (appendAll) and appends beside it', async () => {
    async function* batches(): AsyncIterable<JournalEvent[]> {
      for (let b = 0; b < 5; b++) yield Array.from({ length: 20 }, (_, i) => parked(`imp-${b}-${i}`, `wf-${i % 3}`, T0 + b * MINUTE + i)).flat();
    }
    await writer.appendAll(batches());
    await writer.append(Array.from({ length: 20 }, (_, i) => aResume(`imp-0-${i}`, T0 + HOUR)));
    const counted = await expectExact(db);
    expect(Object.values(counted).reduce((a, b) => a + b, 0)).toBe(100 - 20);
  });
});

describe('waiting counts on PostgreSQL: rows per backend, folded', () => {
  let store: FreshStore;
  const opened: Knex[] = [];
  const open = async (): Promise<Knex> => {
    const db = await store.open();
    opened.push(db);
    return db;
  };
  beforeEach(async () => {
    store = await freshPostgresStore();
  });
  afterEach(() => store.close());

  const slots = async (db: Knex): Promise<Array<{ workflow: string; slot: number; runs: number }>> =>
    (await db('workflow_waiting').select('workflow', 'slot', 'runs').orderBy(['workflow', 'slot'])) as Array<{ workflow: string; slot: number; runs: number }>;
  const deadlocks = async (db: Knex): Promise<number> =>
    Number(((await db.raw('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')).rows as Array<{ deadlocks: unknown }>)[0]!.deadlocks);

  it('two writers parking and waking runs of the same workflows at once, in group commits of several workflows: no error, no deadlock, counts exact', async () => {
    const [a, b] = [await open(), await open()];
    const writers = { a: new KnexJournalWriter(a), b: new KnexJournalWriter(b) };
    const workflows = ['w-1', 'w-2', 'w-3', 'w-4'];
    const runsOf = (who: 'a' | 'b'): Array<{ runId: string; workflow: string }> =>
      // Writer a walks the workflows one way, writer b the other: their group commits meet them in opposite orders.
      Array.from({ length: 24 }, (_, i) => ({ runId: `${who}-${i}`, workflow: workflows[who === 'a' ? i % 4 : 3 - (i % 4)]! }));
    const before = await deadlocks(a);
    await Promise.all((['a', 'b'] as const).map((who) => writers[who].append(runsOf(who).flatMap((r) => aRun({ ...r, at: T0, steps: [], status: 'running' })))));
    // Ten rounds: every run parked, then woken, each append one run, a writer's appends all at once (its group commits).
    let appends = 0;
    for (let round = 0; round < 10; round++) {
      const at = T0 + (round + 1) * MINUTE;
      const move = (runId: string): JournalEvent => (round % 2 === 0 ? aPark(runId, at, { waitKind: 'delay' }) : aResume(runId, at));
      await Promise.all((['a', 'b'] as const).flatMap((who) => runsOf(who).map((r) => {
        appends++;
        return writers[who].append([move(r.runId)]);
      })));
      await expectExact(a);
    }
    // Every run is waiting now (an even count of rounds ended on a wake: park them once more), then each writer
    // wakes two thirds of the other's runs (a backend's rows may count below zero); the rest finish from waiting (one
    // append per writer, one after the other: a finish adds to the workflow's stats row, which is not this test's).
    await Promise.all((['a', 'b'] as const).map((who) => writers[who].append(runsOf(who).map((r) => aPark(r.runId, T0 + HOUR, { waitKind: 'tx' })))));
    expect(await expectExact(a)).toEqual(Object.fromEntries(workflows.map((w) => [w, 12])));
    const other = (who: 'a' | 'b'): 'a' | 'b' => (who === 'a' ? 'b' : 'a');
    await Promise.all((['a', 'b'] as const).flatMap((who) => runsOf(other(who)).filter((_, i) => i % 3).map((r) => {
      appends++;
      return writers[who].append([aResume(r.runId, T0 + 2 * HOUR)]);
    })));
    expect(await expectExact(b)).toEqual(Object.fromEntries(workflows.map((w) => [w, 4])));
    for (const who of ['a', 'b'] as const) await writers[who].append(runsOf(other(who)).filter((_, i) => i % 3 === 0).map((r) => aFinish(r.runId, T0 + 3 * HOUR)));
    expect(await expectExact(b)).toEqual({});
    expect(appends).toBeGreaterThanOrEqual(500);
    expect(await deadlocks(a)).toBe(before);
    // Each backend counted in rows of its own: more than one slot per workflow, the two writers' pools apart.
    const rows = await slots(a);
    expect(new Set(rows.map((r) => r.slot)).size).toBeGreaterThan(1);
  }, 120_000);

  it('a writer does not wait for another\'s open transaction that parked and woke runs of the same workflows', async () => {
    const [a, b] = [await open(), await open()];
    await new KnexJournalWriter(a).append(['w-1', 'w-2', 'w-1', 'w-2'].flatMap((workflow, i) => aRun({ runId: `r-${i}`, workflow, at: T0, steps: [], status: 'running' })));
    await new KnexJournalWriter(a).append([aPark('r-2', T0 + MINUTE, { waitKind: 'delay' }), aPark('r-3', T0 + MINUTE, { waitKind: 'delay' })]);
    const open1 = await a.transaction();
    try {
      await new KnexJournalWriter(open1).append([aPark('r-0', T0 + HOUR, { waitKind: 'delay' }), aResume('r-3', T0 + HOUR), aPark('r-1', T0 + HOUR, { waitKind: 'delay' })]);
      // A shared row per workflow would hold b here until a commits: the lock timeout turns such a wait into an error.
      await b.transaction(async (t) => {
        await t.raw("SET LOCAL lock_timeout = '5s'");
        await new KnexJournalWriter(t).append([aResume('r-2', T0 + HOUR)]);
      });
    } finally {
      await open1.commit();
    }
    expect(await expectExact(b)).toEqual({ 'w-1': 1, 'w-2': 1 });
  });

  it('a fold moves the counts of closed connections into slot 0, keeps every sum, and leaves live backends\' rows', async () => {
    const [gone, live] = [await open(), await open()];
    await new KnexJournalWriter(gone).append(['w-1', 'w-2', 'w-1', 'w-3'].flatMap((w, i) => parked(`g-${i}`, w, T0 + i)));
    // Only `gone` has written so far: every slot is one of its backends.
    const goneSlots = new Set((await slots(gone)).map((r) => r.slot));
    expect(goneSlots.size).toBeGreaterThan(0);
    await new KnexJournalWriter(live).append([...parked('l-1', 'w-1', T0), ...parked('l-2', 'w-3', T0)]);
    await new KnexJournalWriter(live).append([aResume('g-0', T0 + HOUR)]);
    const reader = await open();
    const sums = await expectExact(reader);
    expect(sums).toEqual({ 'w-1': 2, 'w-2': 1, 'w-3': 2 });

    await gone.destroy();
    // A backend ends a moment after its client closes: wait until none of the closed pool's is listed.
    const listed = async (): Promise<number> =>
      Number((await reader.raw('SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ANY(?)', [[...goneSlots]])).rows[0].n);
    for (let i = 0; i < 200 && (await listed()) > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await listed()).toBe(0);

    const beforeFold = await slots(reader);
    const folded = await foldWaitingCounts(reader);
    expect(folded).toBe(beforeFold.filter((r) => goneSlots.has(r.slot)).length);
    const after = await slots(reader);
    expect(after.filter((r) => goneSlots.has(r.slot))).toEqual([]);
    expect(after.filter((r) => r.slot !== 0)).toEqual(beforeFold.filter((r) => !goneSlots.has(r.slot) && r.slot !== 0));
    expect(after.some((r) => r.slot === 0)).toBe(true);
    expect(await overview(reader)).toEqual(sums);
    // Folding again finds nothing more; the counts go on from slot 0.
    expect(await foldWaitingCounts(reader)).toBe(0);
    await new KnexJournalWriter(live).append([aResume('g-2', T0 + HOUR), aFinish('g-2', T0 + HOUR + 1)]);
    expect(await expectExact(reader)).toEqual({ 'w-1': 1, 'w-2': 1, 'w-3': 2 });
  }, 60_000);

  it('a fold never waits: it skips a row an open transaction holds and returns while another fold runs', async () => {
    const db = await open();
    // Rows of backends that do not exist (no pid is negative), as a crashed process leaves them.
    await db('workflow_waiting').insert([{ workflow: 'w-1', slot: -7, runs: 2 }, { workflow: 'w-2', slot: -8, runs: 3 }]);
    const holder = await db.transaction();
    try {
      await holder('workflow_waiting').where({ slot: -7 }).update({ runs: 2 });
      expect(await foldWaitingCounts(db)).toBe(1);
      const other = await db.transaction();
      try {
        await other.raw('SELECT pg_advisory_xact_lock(?)', [FOLD_LOCK_KEY]);
        expect(await foldWaitingCounts(db)).toBe(0);
      } finally {
        await other.rollback();
      }
    } finally {
      await holder.commit();
    }
    expect(await foldWaitingCounts(db)).toBe(1);
    expect(await slots(db)).toEqual([{ workflow: 'w-1', slot: 0, runs: 2 }, { workflow: 'w-2', slot: 0, runs: 3 }]);
  });

  it('migration 0026 counts the runs already waiting, and its down takes the table, function and triggers away', async () => {
    const db = await open();
    await new KnexJournalWriter(db).append([...parked('p1', 'payouts', T0), ...parked('p2', 'payouts', T0 + 1), ...parked('k1', 'keeper', T0 + 2)]);
    await db.migrate.down({ migrationSource, name: '0026_waiting_slots' });
    await expect(db.raw('SELECT * FROM workflow_waiting')).rejects.toThrow();
    expect(((await db.raw("SELECT count(*) AS n FROM pg_trigger WHERE tgname LIKE 'runs_waiting_%'")).rows as Array<{ n: string }>)[0]!.n).toBe('0');
    expect(((await db.raw("SELECT count(*) AS n FROM pg_proc WHERE proname = 'workflow_waiting_count'")).rows as Array<{ n: string }>)[0]!.n).toBe('0');
    await new KnexJournalWriter(db).append([aResume('p1', T0 + HOUR), ...parked('k2', 'keeper', T0 + HOUR)]);
    await db.migrate.latest({ migrationSource });
    expect(await slots(db)).toEqual([{ workflow: 'keeper', slot: 0, runs: 2 }, { workflow: 'payouts', slot: 0, runs: 1 }]);
    await new KnexJournalWriter(db).append([aFinish('k1', T0 + 2 * HOUR)]);
    expect(await expectExact(db)).toEqual({ keeper: 1, payouts: 1 });
  });
});
