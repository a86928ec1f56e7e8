import { mkdtempSync, rmSync } from 'node:fs';
import timers from 'node:timers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../../../src/adapters/storage';
import { HISTORY_LISTS, KnexHistoryRepository } from '../../../src/adapters/knex/knex-history.repository';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRetentionRepository } from '../../../src/adapters/knex/knex-retention.repository';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { migrationSource } from '../../../src/adapters/knex/migrations';
import { HistogramCache, packedValues } from '../../../src/adapters/knex/rows';
import { plusPlaceholders } from '../../../src/adapters/knex/sql-text';
import { eachLine, readersOf, ShapedSql } from '../../../src/adapters/knex/list-reads';
import { SqliteReaders } from '../../../src/adapters/sqlite/sqlite-readers';
import { countImmediateTurns, POLL_WINDOW_MS } from '../../support/event-loop-turns';
import { DurationHistogram } from '../../../src/domain/duration-histogram';
import type { RunFilter } from '../../../src/application/ports/run-repository';
import { aFinish, aResume, aRun, aTxHash, HOUR, MINUTE, T0 } from '../../mothers/journal-events';

/** The read path of the history lists on a SQLite file: reader connections, query texts per shape, waiting counts. */
describe('SQLite read path of the history lists', () => {
  let dir: string;
  let db: Knex;
  let writer: KnexJournalWriter;
  let runs: KnexRunRepository;
  let history: KnexHistoryRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chainflow-read-path-'));
    db = await openDatabase(`sqlite:${join(dir, 'journal.db')}`);
    writer = new KnexJournalWriter(db);
    runs = new KnexRunRepository(db);
    history = new KnexHistoryRepository(db);
  });

  /** What a test opened beside the database, closed after it. */
  const afterDone: Array<() => Promise<void>> = [];

  afterEach(async () => {
    jest.restoreAllMocks();
    for (const close of afterDone.splice(0)) await close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const journal = async (): Promise<void> => {
    await writer.append([
      ...aRun({ runId: 'a1', workflow: 'payouts', at: T0, network: 'sepolia', contract: '0xc0', block: 7, send: { relayer: 'ops', txHash: aTxHash('t1') } }),
      ...aRun({ runId: 'a2', workflow: 'payouts', at: T0 + MINUTE, failure: { kind: 'http_error' }, session: 'replay', sessionId: 'sess-1' }),
      ...aRun({ runId: 'a3', workflow: 'keeper', at: T0 + 2 * MINUTE, park: { waitKind: 'delay' } }),
      ...aRun({ runId: 'a4', workflow: 'payouts', at: T0 + 3 * MINUTE, park: { waitKind: 'delay' } }),
      ...aRun({ runId: 'a5', workflow: 'keeper', at: T0 + 4 * MINUTE, send: { relayer: 'keeper-base', txHash: aTxHash('t5') } }),
    ]);
  };

  /** The same page through knex alone (the path without readers). */
  const viaKnex = async (filter: RunFilter, after?: { createdAt: number; id: string }): Promise<string[]> => {
    const rows = (await runs.listQuery(filter, { limit: 3, after }).clearSelect().select('r.run_id')) as { run_id: string }[];
    return rows.map((r) => r.run_id);
  };

  it('answers every run filter, first and next page, as the knex query does, each from a checked query text', async () => {
    await journal();
    const texts = jest.spyOn(ShapedSql.prototype, 'sql');
    const filters: RunFilter[] = [
      {}, { workflow: 'payouts' }, { status: 'waiting' }, { trigger: 'manual' }, { network: 'sepolia' }, { contract: '0xc0' }, { block: 7 },
      { runId: 'a2' }, { errorKind: 'http_error' }, { session: 'replay' }, { relayer: 'ops' }, { txHash: aTxHash('t5') }, { stepId: 'fetch_quote' },
      { since: T0 + MINUTE }, { until: T0 + 3 * MINUTE }, { relayer: 'ops', stepId: 'fetch_quote', workflow: 'payouts', since: T0 - HOUR, until: T0 + HOUR },
    ];
    for (const filter of filters) {
      const first = await runs.list(filter, { limit: 3 });
      expect(first.map((r) => r.runId)).toEqual(await viaKnex(filter));
      const last = first[first.length - 1];
      if (last) {
        const after = { createdAt: last.createdAt, id: last.runId };
        expect((await runs.list(filter, { limit: 3, after })).map((r) => r.runId)).toEqual(await viaKnex(filter, after));
      }
    }
    // Each shape's bindings matched knex's: no page fell back to building its query with knex.
    expect(texts.mock.results.length).toBeGreaterThanOrEqual(filters.length);
    for (const r of texts.mock.results) expect(r.value).toEqual(expect.stringMatching(/^select /));
  });

  it('writes each parameter of a reader query as +?, never inside quoted text or names', () => {
    expect(plusPlaceholders("select ?, '?', \"a?b\", `c?`, 'it''s ?', x from t where y in (?, ?) limit ?"))
      .toBe("select +?, '?', \"a?b\", `c?`, 'it''s ?', x from t where y in (+?, +?) limit +?");
  });

  it('the reader texts keep the plan knex\'s text gets, every list, first and next page; the waiting list its partial index', async () => {
    await journal();
    const readers = readersOf(db)!;
    const plan = async (sql: string, bindings: readonly unknown[]): Promise<string> =>
      (await readers.select(`EXPLAIN QUERY PLAN ${sql}`, bindings)).map((r) => String(r.detail)).join(' | ');
    const after = { createdAt: T0 + 2 * MINUTE, id: 'a3' };
    const queries = [
      ...([{}, { workflow: 'payouts' }, { status: 'waiting' }, { relayer: 'ops' }, { stepId: 'fetch_quote', since: T0 }] as RunFilter[]).flatMap((f) =>
        [runs.listQuery(f, { limit: 3 }), runs.listQuery(f, { limit: 3, after })]),
      history.pageQuery(HISTORY_LISTS.WAITING, { equals: { workflow: 'keeper' } }, { limit: 3, after }),
      history.pageQuery(HISTORY_LISTS.SENDS, { equals: { status: 'settled' } }, { limit: 3, after }),
    ];
    for (const q of queries) {
      const { sql, bindings } = q.toSQL();
      const text = plusPlaceholders(sql);
      expect(text).not.toMatch(/[^+]\?/);
      expect(await plan(text, bindings)).toBe(await plan(sql, bindings));
      expect(await readers.select(text, bindings)).toEqual(await readers.select(sql, bindings));
    }
    expect(await plan(plusPlaceholders(queries[10]!.toSQL().sql), queries[10]!.toSQL().bindings)).toMatch(/USING INDEX runs_waiting_/);
  });

  it('a packed page keeps newest first, and is put back in that order should SQLite hand its rows over in another', async () => {
    const readers = readersOf(db)!;
    const values = "SELECT json_array(column1, column2) AS packed FROM (VALUES (1, 'a'), (3, 'c'), (2, 'b'), (3, 'd'))";
    expect(await readers.selectPacked(values, [], { time: 0, id: 1 })).toEqual([[3, 'd'], [3, 'c'], [2, 'b'], [1, 'a']]);
    expect(await readers.selectPacked(`${values} WHERE column1 > 9`, [], { time: 0, id: 1 })).toEqual([]);
  });

  it('reads a page of lines as one text, and cuts each line into its fields, empty ones too', async () => {
    const readers = readersOf(db)!;
    const lines = "SELECT concat(column1, char(9), column2, char(9), column3) AS line FROM (VALUES ('a', '', 'c'), ('', 'x y', ''), ('{\"k\":1}', '7', 'id'))";
    const text = await readers.selectText(lines, []);
    expect(text).toBe('a\t\tc\n\tx y\t\n{"k":1}\t7\tid');
    const cut: string[][] = [];
    eachLine(text, 3, (line, at) => void cut.push([0, 1, 2].map((i) => line.slice(at[i]!, at[i + 1]! - 1))));
    expect(cut).toEqual([['a', '', 'c'], ['', 'x y', ''], ['{"k":1}', '7', 'id']]);
    expect(await readers.selectText(`${lines} WHERE column2 = 'none'`, [])).toBe('');
    eachLine('', 3, () => {
      throw new Error('no line in an empty page');
    });
    expect(() => eachLine('a\tb\nc', 2, () => undefined)).toThrow(/fewer than 2 fields/);
  });

  it('keeps the event loop turning while a read runs alone, never past its answer or its polling time, and not beside another read', async () => {
    await journal();
    // POLL_WINDOW_MS, not the server's 1 ms: see its comment.
    const readers = new SqliteReaders(join(dir, 'journal.db'), [], 2, POLL_WINDOW_MS);
    afterDone.push(() => readers.close());
    // Two readers open and idle, so that two reads started together both run at once.
    await Promise.all([readers.select('SELECT 1 AS x', []), readers.select('SELECT 1 AS x', [])]);
    const turns = countImmediateTurns();
    // A statement that runs for some windows: it counts to 600,000.
    const slow = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600000) SELECT count(*) AS c FROM n';
    const started = performance.now();
    expect(await readers.select(slow, [])).toEqual([{ c: 600000 }]);
    const answered = performance.now();
    expect(answered - started).toBeGreaterThan(3 * POLL_WINDOW_MS);
    expect(turns.length).toBeGreaterThan(1);
    // Stopped at its deadline, not at the answer: at least a window before it.
    expect(answered - Math.max(...turns)).toBeGreaterThan(POLL_WINDOW_MS);

    // A short read is polled until it answers, then no more turns come (one may already be queued).
    turns.length = 0;
    await readers.select('SELECT 2 AS x', []);
    const after = turns.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(after).toBeGreaterThan(0);
    expect(turns.length).toBeLessThanOrEqual(after + 1);

    // Two reads side by side: the first is polled only until the second starts (one turn), the second not at all.
    turns.length = 0;
    expect(await Promise.all([readers.select(slow, []), readers.select(slow, [])])).toEqual([[{ c: 600000 }], [{ c: 600000 }]]);
    expect(turns.length).toBeLessThanOrEqual(2);
    await expect(readers.select('SELECT nothing FROM nowhere', [])).rejects.toThrow(/nowhere/);
  });

  it('never polls for a command\'s reads (a database opened for a command), nor for readers not asked to', async () => {
    await journal();
    const turns = jest.spyOn(timers, 'setImmediate');
    await readersOf(db)!.select('SELECT count(*) AS n FROM runs', []);
    const own = new SqliteReaders(join(dir, 'journal.db'), [], 2);
    afterDone.push(() => own.close());
    await own.select('SELECT count(*) AS n FROM runs', []);
    expect(turns).not.toHaveBeenCalled();
  });

  it('reads on connections that refuse to write', async () => {
    await expect(readersOf(db)!.select('DELETE FROM runs', [])).rejects.toThrow(/read-only|readonly|SQLITE_READONLY/i);
  });

  it('a page read right after an append shows it (readers see every commit of the writer)', async () => {
    await journal();
    expect((await runs.list({}, { limit: 1 }))[0]!.runId).toBe('a5');
    await writer.append(aRun({ runId: 'a6', workflow: 'keeper', at: T0 + 5 * MINUTE }));
    expect((await runs.list({}, { limit: 1 }))[0]!.runId).toBe('a6');
    expect((await history.listWaiting({ equals: {} }, { limit: 10 })).map((r) => r.runId)).toEqual(['a4', 'a3']);
  });

  const waiting = async (): Promise<Record<string, number>> =>
    Object.fromEntries((await history.listWorkflows([], 100)).map((w) => [w.workflow, w.runsWaiting]));
  const recount = async (): Promise<Record<string, number>> => {
    const rows = (await db('runs').select('workflow').count({ n: '*' }).where({ status: 'waiting' }).groupBy('workflow')) as { workflow: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.workflow, Number(r.n)]));
  };

  it('keeps the waiting runs per workflow equal to a count of the runs, through resumes, edits and deletes', async () => {
    await journal();
    expect(await waiting()).toEqual({ keeper: 1, payouts: 1 });
    await writer.append([aResume('a3', T0 + HOUR), aFinish('a3', T0 + HOUR + MINUTE)]);
    expect(await waiting()).toEqual({ keeper: 0, payouts: 1 });
    // Any writer of the runs table keeps it: a run moved to another workflow, one parked by hand, one deleted.
    await db('runs').where({ run_id: 'a4' }).update({ workflow: 'keeper' });
    expect(await waiting()).toEqual({ keeper: 1, payouts: 0 });
    await db('runs').where({ run_id: 'a1' }).update({ status: 'waiting' });
    await db('runs').where({ run_id: 'a4' }).update({ status: 'waiting', parked_at: T0 });
    expect(await waiting()).toEqual({ keeper: 1, payouts: 1 });
    await new KnexRetentionRepository(db).pruneBefore(T0 + 30 * 1000);
    expect(await waiting()).toEqual({ keeper: 1, payouts: 0 });
    const counted = await recount();
    expect(await waiting()).toEqual({ keeper: counted.keeper ?? 0, payouts: counted.payouts ?? 0 });
  });

  it('a journal opened before the waiting counts existed gets them counted once, on migration', async () => {
    await journal();
    await db.migrate.down({ migrationSource, name: '0008_perf_read_waiting' });
    await expect(db.raw('SELECT * FROM workflow_waiting')).rejects.toThrow();
    expect((await runs.list({}, { limit: 10 })).length).toBe(5);
    await db.migrate.latest({ migrationSource });
    expect(await waiting()).toEqual({ keeper: 1, payouts: 1 });
  });

  it('reuses a workflow\'s histogram while its stored text is unchanged, and reads it again once it changes', () => {
    const cache = new HistogramCache();
    const a = cache.of('payouts', '{"100":3,"200":1}');
    expect(cache.of('payouts', '{"100":3,"200":1}')).toBe(a);
    expect(a.quantile(0.5)).toBe(DurationHistogram.fromJson('{"100":3,"200":1}').quantile(0.5));
    expect(a.quantile(0.95)).toBe(DurationHistogram.fromJson('{"100":3,"200":1}').quantile(0.95));
    const b = cache.of('payouts', '{"100":3,"200":9}');
    expect(b).not.toBe(a);
    expect(b.quantile(0.5)).toBe(DurationHistogram.fromJson('{"100":3,"200":9}').quantile(0.5));
    expect(() => b.add(5)).toThrow(/shared/);
    expect(b.plus(DurationHistogram.empty()).total).toBe(12);
  });
  it('packs a row with its JSON text columns spliced in as stored: the same values as parsing them in SQLite', async () => {
    await db.raw('CREATE TABLE packing (run_id TEXT, relayers TEXT, workflow TEXT, tx_hashes TEXT, block INTEGER, step_ids TEXT)');
    const rows: unknown[][] = [
      ['r]1', '["a]", "[b", "q\\"uote", "ü ✓"]', 'w[', '[]', 7, '["x"]'],
      ['[r2]', null, ']', null, null, '[ "spaced" , "json" ]'],
      ['"r3"', '[]', null, '["0x01"]', -3, null],
    ];
    for (const row of rows) await db.raw('INSERT INTO packing VALUES (?, ?, ?, ?, ?, ?)', row as Knex.RawBinding[]);
    const columns = ['run_id', 'relayers', 'workflow', 'tx_hashes', 'block', 'step_ids'];
    const spliced = (await db.raw(`SELECT ${packedValues('p', columns)} AS packed FROM packing AS p ORDER BY rowid`)) as { packed: string }[];
    const parsed = (await db.raw(`SELECT json_array(p.run_id, json(p.relayers), p.workflow, json(p.tx_hashes), p.block, json(p.step_ids)) AS packed FROM packing AS p ORDER BY rowid`)) as { packed: string }[];
    expect(spliced.map((r) => JSON.parse(r.packed))).toEqual(parsed.map((r) => JSON.parse(r.packed)));
    expect(JSON.parse(spliced[1]!.packed)).toEqual(['[r2]', null, ']', null, null, ['spaced', 'json']]);
    expect(packedValues('p', ['run_id', 'block'])).toBe('json_array(p."run_id", p."block")');
  });
});
