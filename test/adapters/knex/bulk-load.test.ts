import { existsSync, statSync } from 'node:fs';
import type { Knex } from 'knex';
import sqlite3 from 'sqlite3';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { sampleJournal } from '../../../src/application/journal/sample-journal';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { aRun, HOUR, T0 } from '../../mothers/journal-events';
import { freshSqliteStore, type FreshStore } from '../../support/stores';

/**
 * An import into an empty SQLite database writes its pages once, through a rollback journal instead of the WAL
 * (sqlite-bulk-load.ts); with the database open elsewhere, or not empty, it goes through the WAL as before. Either
 * way the database ends up the same, text for text, and a refused import leaves it as it was, in WAL mode.
 */
describe('journal import into an empty SQLite database (bulk load)', () => {
  const stores: FreshStore[] = [];
  afterAll(() => Promise.all(stores.map((s) => s.close())));

  const journal: JournalEvent[] = [
    ...sampleJournal(T0),
    ...Array.from({ length: 400 }, (_, i) => aRun({ runId: `bulk-${i}`, at: T0 + 2 * HOUR + i * 1000 })).flat(),
  ];
  async function* batchesOf(events: readonly JournalEvent[], size = 500): AsyncGenerator<readonly JournalEvent[]> {
    for (let i = 0; i < events.length; i += size) yield events.slice(i, i + size);
  }

  const fresh = async (): Promise<{ store: FreshStore; db: Knex; file: string; writer: KnexJournalWriter }> => {
    const store = await freshSqliteStore();
    stores.push(store);
    const db = await store.open();
    return { store, db, file: store.url.slice('sqlite:'.length), writer: new KnexJournalWriter(db) };
  };
  const walBytes = (file: string): number => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
  const journalMode = async (db: Knex): Promise<string> => ((await db.raw('PRAGMA journal_mode')) as { journal_mode: string }[])[0]!.journal_mode;
  /** Every table, as the text of its rows in key order (rowid order for the few without a key of their own). */
  const dump = async (db: Knex): Promise<Record<string, string[]>> => {
    const tables = (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'knex_%' AND name NOT LIKE 'sqlite_%' AND name <> 'meta' ORDER BY name")) as { name: string }[];
    const out: Record<string, string[]> = {};
    for (const { name } of tables) out[name] = ((await db.select('*').from(name)) as Record<string, unknown>[]).map((r) => JSON.stringify(r)).sort();
    return out;
  };
  /** Another connection to the file, as another process holding the database open would have. */
  const openElsewhere = (file: string): Promise<sqlite3.Database> =>
    new Promise((resolve, reject) => {
      const other = new sqlite3.Database(file, (err) => (err ? reject(err) : other.get('SELECT count(*) FROM events', (e) => (e ? reject(e) : resolve(other)))));
    });

  it('writes no WAL frames, is in WAL mode afterwards, and gives the same database as the WAL, text for text', async () => {
    const bulk = await fresh();
    expect(await bulk.writer.appendAll(batchesOf(journal))).toEqual({ applied: journal.length, duplicates: 0 });
    expect(walBytes(bulk.file)).toBeLessThan(64 * 1024);
    expect(await journalMode(bulk.db)).toBe('wal');
    expect(existsSync(`${bulk.file}-journal`)).toBe(false);

    // The same import with the database open elsewhere: SQLite keeps it in WAL mode, and every page goes there.
    const wal = await fresh();
    const other = await openElsewhere(wal.file);
    try {
      expect(await wal.writer.appendAll(batchesOf(journal))).toEqual({ applied: journal.length, duplicates: 0 });
    } finally {
      await new Promise((r) => other.close(r));
    }
    expect(walBytes(wal.file)).toBeGreaterThan(1024 * 1024);
    expect(await dump(bulk.db)).toEqual(await dump(wal.db));
  });

  it('a second import into the now non-empty database goes through the WAL and finds every event a duplicate', async () => {
    const { db, file, writer } = await fresh();
    await writer.appendAll(batchesOf(journal.slice(0, 2000)));
    const before = walBytes(file);
    expect(await writer.appendAll(batchesOf(journal))).toEqual({ applied: journal.length - 2000, duplicates: 2000 });
    expect(walBytes(file)).toBeGreaterThan(before + 64 * 1024);
    expect(await journalMode(db)).toBe('wal');
  });

  it('an import refused after several batches leaves the empty database as it was, in WAL mode, no journal left', async () => {
    const { db, file, writer } = await fresh();
    const empty = await dump(db);
    const bad: JournalEvent = { type: 'run.finished', at: journal[0]!.at, run_id: 'no-such-run', status: 'succeeded' };
    await expect(writer.appendAll(batchesOf([...journal, bad]))).rejects.toMatchObject({ index: journal.length });
    expect(await dump(db)).toEqual(empty);
    expect(await journalMode(db)).toBe('wal');
    expect(existsSync(`${file}-journal`)).toBe(false);
    // And the database takes the import afterwards.
    expect(await writer.appendAll(batchesOf(journal))).toEqual({ applied: journal.length, duplicates: 0 });
  });
});
