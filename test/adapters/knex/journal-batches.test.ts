import type { Knex } from 'knex';
import { dialectOf } from '../../../src/adapters/knex/dialect';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { sampleJournal } from '../../../src/application/journal/sample-journal';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import type { AppendResult } from '../../../src/application/ports/journal-writer';
import { T0 } from '../../mothers/journal-events';
import { KNEX_STORES, type FreshStore } from '../../support/stores';

/**
 * The journal writer's stream of batches (each batch's writes run while the next batch is read and hashed): however a
 * journal is cut into batches, the database ends up the same as when it is appended in one, on SQLite and on PostgreSQL,
 * projections, events and ledger alike.
 */
describe.each(KNEX_STORES)('journal writer on %s: a stream of batches writes what one batch writes', (_name, freshStore) => {
  const stores: FreshStore[] = [];
  afterAll(() => Promise.all(stores.map((s) => s.close())));

  const journal = sampleJournal(T0);
  const cut = (events: readonly JournalEvent[], size: number): JournalEvent[][] => {
    const out: JournalEvent[][] = [];
    for (let i = 0; i < events.length; i += size) out.push(events.slice(i, i + size));
    return out;
  };
  async function* batchesOf(parts: readonly JournalEvent[][]): AsyncGenerator<readonly JournalEvent[]> {
    for (const part of parts) yield part;
  }

  const fresh = async (): Promise<{ db: Knex; writer: KnexJournalWriter }> => {
    const store = await freshStore();
    stores.push(store);
    const db = await store.open();
    return { db, writer: new KnexJournalWriter(db) };
  };

  /** A workflow's duration histogram is JSON text whose keys come in the order its counts were merged: compared by value. */
  const canonical = (row: Record<string, unknown>): string => JSON.stringify(typeof row.durations === 'string'
    ? { ...row, durations: Object.entries(JSON.parse(row.durations) as Record<string, number>).sort(([a], [b]) => Number(a) - Number(b)) }
    : row);

  /** Every table but the migrations' own and `meta` (a random cursor key), each as sorted JSON rows. */
  const dump = async (db: Knex): Promise<Record<string, string[]>> => {
    const tables = dialectOf(db).kind === 'sqlite'
      ? (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'knex_%' AND name NOT LIKE 'sqlite_%' AND name <> 'meta' ORDER BY name")) as { name: string }[]
      : ((await db.raw("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT LIKE 'knex_%' AND table_name <> 'meta' ORDER BY table_name")) as { rows: { name: string }[] }).rows;
    const out: Record<string, string[]> = {};
    for (const { name } of tables) {
      // The waiting counts by what they say: on PostgreSQL their rows are per backend (migration 0026), which differ.
      const rows = name === 'workflow_waiting'
        ? await dialectOf(db).select(db, 'SELECT workflow, sum(runs) AS runs FROM workflow_waiting GROUP BY workflow HAVING sum(runs) <> 0', [])
        : ((await db.select('*').from(name)) as Record<string, unknown>[]);
      out[name] = rows.map(canonical).sort();
    }
    return out;
  };

  let whole: Record<string, string[]>;
  beforeAll(async () => {
    const { db, writer } = await fresh();
    const result = await writer.appendAll(batchesOf([journal]));
    expect(result).toEqual({ applied: journal.length, duplicates: 0 });
    whole = await dump(db);
  });

  it('the sample journal fills the projections, the events and the ledger', () => {
    for (const table of ['runs', 'sends', 'approvals', 'reorgs', 'sessions', 'events', 'spend_entries']) expect(whole[table]!.length).toBeGreaterThan(0);
    expect(whole.events).toHaveLength(journal.length);
  });

  it.each([1, 2, 3, 7, 50])('in batches of %i events: the same tables, row for row', async (size) => {
    const { db, writer } = await fresh();
    const seen: number[] = [];
    const result = await writer.appendAll(batchesOf(cut(journal, size)), (done) => seen.push(done.applied + done.duplicates));
    expect(result).toEqual({ applied: journal.length, duplicates: 0 });
    expect(seen).toEqual(cut(journal, size).map((_, i) => Math.min(journal.length, (i + 1) * size)));
    expect(await dump(db)).toEqual(whole);
  });

  it('an event per append, each begun while those before it are written (group commits, several in flight on PostgreSQL): the same tables', async () => {
    const { db, writer } = await fresh();
    // A turn of the event loop between appends: each starts a group while the ones before it are still written.
    const pending: Promise<AppendResult>[] = [];
    for (const e of journal) {
      pending.push(writer.append([e]));
      await new Promise((r) => setImmediate(r));
    }
    const results = await Promise.all(pending);
    expect(results.reduce((n, r) => n + r.applied, 0)).toBe(journal.length);
    // Serial ids number rows in the order their transactions wrote them: several group commits in flight
    // (PostgreSQL) take them in whichever order they reach the table. Everything else is the same.
    const withoutIds = (tables: Record<string, string[]>): Record<string, string[]> => Object.fromEntries(Object.entries(tables).map(([name, rows]) =>
      [name, rows.map((r) => JSON.stringify((({ id: _id, ...rest }) => rest)(JSON.parse(r) as Record<string, unknown>))).sort()]));
    expect(withoutIds(await dump(db))).toEqual(withoutIds(whole));
  });

  it('in two imports cut mid-run, each in batches: the same tables; again in batches, every event a duplicate', async () => {
    const { db, writer } = await fresh();
    const half = Math.floor(journal.length / 2) + 1;
    await writer.appendAll(batchesOf(cut(journal.slice(0, half), 4)));
    await writer.appendAll(batchesOf(cut(journal.slice(half), 5)));
    expect(await dump(db)).toEqual(whole);
    expect(await writer.appendAll(batchesOf(cut(journal, 3)))).toEqual({ applied: 0, duplicates: journal.length });
    expect(await dump(db)).toEqual(whole);
  });

  it('an event repeated a batch or two later in the same import is a duplicate, as within one batch', async () => {
    const repeated: JournalEvent[] = [];
    journal.forEach((e, i) => {
      repeated.push(e);
      if (i % 10 === 9) repeated.push(journal[i - 3]!);
    });
    const dupes = repeated.length - journal.length;
    for (const size of [2, 4]) {
      const { db, writer } = await fresh();
      expect(await writer.appendAll(batchesOf(cut(repeated, size)))).toEqual({ applied: journal.length, duplicates: dupes });
      expect(await dump(db)).toEqual(whole);
    }
  });

  it('a landed send settled again (same hash, later) in the next batch adds no second ledger entry, as within one batch', async () => {
    const again: JournalEvent[] = [];
    let settledAgain = 0;
    for (const e of journal) {
      again.push(e);
      if (e.type === 'send.settled' && e.outcome !== 'dropped' && e.receipt) {
        again.push({ ...e, at: new Date(Date.parse(e.at) + 1000).toISOString() });
        settledAgain++;
      }
    }
    expect(settledAgain).toBeGreaterThan(0);
    const one = await fresh();
    await one.writer.appendAll(batchesOf([again]));
    const inOne = await dump(one.db);
    expect(inOne.spend_entries).toEqual(whole.spend_entries);
    expect(inOne.spend_rollups).toEqual(whole.spend_rollups);
    for (const size of [1, 2, 3]) {
      const { db, writer } = await fresh();
      expect(await writer.appendAll(batchesOf(cut(again, size)))).toEqual({ applied: again.length, duplicates: 0 });
      expect(await dump(db)).toEqual(inOne);
    }
  });

  it('a batch refused after others leaves nothing of any of them', async () => {
    const { db, writer } = await fresh();
    const empty = await dump(db);
    const bad: JournalEvent = { type: 'run.finished', at: journal[0]!.at, run_id: 'no-such-run', status: 'succeeded' };
    const parts = [...cut(journal.slice(0, 40), 6), [bad]];
    await expect(writer.appendAll(batchesOf(parts))).rejects.toMatchObject({ index: 40 });
    expect(await dump(db)).toEqual(empty);
  });
});
