import fc from 'fast-check';
import type { Knex } from 'knex';
import { KnexHistoryRepository } from '../../../src/adapters/knex/knex-history.repository';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { migrationSource } from '../../../src/adapters/knex/migrations';
import { jsonString } from '../../../src/adapters/knex/item-sql';
import type { ExplorerTxLinks } from '../../../src/application/ports/history-repository';
import { toApprovalItem, toRunItem, toSendAttemptItem } from '../../../src/application/history/items';
import { aFinish, aResume, aRun, HOUR, MINUTE, T0 } from '../../mothers/journal-events';
import { freshPostgresStore, freshSqliteStore, type FreshStore } from '../../support/stores';

type Row = Record<string, unknown>;

/** The stores and how each refuses a write to a stored item (a generated column on both). */
const STORES = [
  { name: 'SQLite (migrations 0010, 0012, 0014)', fresh: freshSqliteStore, refused: (table: string) => new RegExp(`update of ${table} failed`) },
  { name: 'PostgreSQL (migrations 0025, 0027)', fresh: freshPostgresStore, refused: (table: string) => new RegExp(`update of ${table} failed: .*SQLSTATE 428C9`) },
] as const;

describe.each(STORES)("the runs', sends' and approvals' stored items on $name", ({ name, fresh, refused }) => {
  const onSqlite = name.startsWith('SQLite');
  let store: FreshStore;
  let db: Knex;
  let writer: KnexJournalWriter;
  let history: KnexHistoryRepository;
  let runs: KnexRunRepository;

  beforeEach(async () => {
    store = await fresh();
    db = await store.open();
    writer = new KnexJournalWriter(db);
    history = new KnexHistoryRepository(db);
    runs = new KnexRunRepository(db);
  });
  afterEach(async () => {
    await store.close();
  });

  const links: ExplorerTxLinks = {
    txPrefix: (network, chainId) => `https://scan.example/${network}/${chainId}/tx/`,
    tx: (network, chainId, txHash) => `https://scan.example/${network}/${chainId}/tx/${txHash}`,
  };
  const explorer = (network: string, chainId: number, txHash: string): string | null => links.tx(network, chainId, txHash);
  const ALL = { equals: {} };
  const awkward = 'q"b\\s/\n\t\r\u0001 é ✓ \u2028 😀';
  const rows = async (sql: string, bindings: readonly unknown[] = []): Promise<Row[]> => {
    const result = (await db.raw(sql, bindings as Knex.RawBinding[])) as Row[] | { rows: Row[] };
    return Array.isArray(result) ? result : result.rows;
  };
  /** The indexes and triggers of both tables, as SQLite keeps them. */
  const schema = (): Promise<Row[]> => rows("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name IN ('runs', 'sends', 'approvals') ORDER BY name");
  const order = (): Promise<Row[]> => rows("SELECT 'run', rowid, run_id FROM runs UNION ALL SELECT 'send', rowid, send_id FROM sends UNION ALL SELECT 'approval', rowid, approval_id FROM approvals ORDER BY 1, 2");
  /** The pages of every run and every send, and what list and listSends render of them: they must be the same text. */
  const pagesAndExpected = async (): Promise<string[][]> => {
    const sendItems = await history.listSendItems(ALL, { limit: 100 }, links);
    const sends = await history.listSends(ALL, { limit: 100 });
    const runItems = await runs.listItems({}, { limit: 100 });
    const list = await runs.list({}, { limit: 100 });
    const approvalItems = await history.listApprovalItems(ALL, { limit: 100 });
    const approvals = await history.listApprovals(ALL, { limit: 100 });
    return [
      sendItems.map((i) => i.json), sends.map((s) => JSON.stringify(toSendAttemptItem(s, explorer))), runItems.map((i) => i.json), list.map((r) => JSON.stringify(toRunItem(r))),
      approvalItems.map((i) => i.json), approvals.map((a) => JSON.stringify(toApprovalItem(a))),
    ];
  };
  const waitingCounts = (): Promise<Row[]> => rows("SELECT workflow, runs FROM workflow_waiting WHERE runs > 0 ORDER BY workflow");

  const awkwardJournal = async (): Promise<unknown> => writer.append([
      ...aRun({ runId: 'r1', at: T0, send: { sendId: 's1' } }),
      ...aRun({ runId: 'r2', at: T0 + MINUTE, send: { sendId: 's2', status: 'queued' }, status: 'running' }),
      ...aRun({ runId: 'r3', workflow: awkward, at: '1969-12-31T23:59:58.999Z', send: { sendId: 's3', relayer: awkward, network: `net ${awkward}`, chainId: 2 ** 31 } }),
      ...aRun({ runId: 'parked', workflow: 'keeper', at: T0 + 2 * MINUTE, park: { waitKind: 'delay' } }),
      ...aRun({ runId: 'asked', at: T0 + 3 * MINUTE, approval: { approvalId: 'ap1', message: awkward, expiresAt: '1970-01-01T00:00:00.001Z' }, park: { waitKind: 'approval' } }),
      ...aRun({ runId: 'decided', at: T0 + 4 * MINUTE, approval: { approvalId: 'ap2', decision: 'rejected', by: awkward, reason: 'q"' } }),
  ]);

  if (onSqlite) it('rebuilds a journal written before it with every item, index, trigger and row order, and takes the items away on the way down', async () => {
    await awkwardJournal();
    const before = await pagesAndExpected();
    expect(before[0]).toEqual(before[1]);
    expect(before[2]).toEqual(before[3]);
    expect(before[4]).toEqual(before[5]);
    expect(before[4]).toHaveLength(2);
    expect(before[0]).toHaveLength(3);
    expect(before[2]).toHaveLength(6);
    const schemaBefore = await schema();
    expect(schemaBefore.filter((r) => r.type === 'trigger').map((r) => r.name)).toEqual(['runs_waiting_delete', 'runs_waiting_insert', 'runs_waiting_update']);
    expect(schemaBefore.filter((r) => r.type === 'index').length).toBeGreaterThan(20);
    const orderBefore = await order();

    await db.migrate.down({ migrationSource, name: '0014_send_token_transfer' });
    await db.migrate.down({ migrationSource, name: '0012_approval_items' });
    await db.migrate.down({ migrationSource, name: '0010_stored_items' });
    for (const table of ['runs', 'sends', 'approvals']) await expect(db.raw(`SELECT item FROM ${table}`)).rejects.toThrow(/no such column/);
    await expect(db.raw('SELECT token_transfer FROM sends')).rejects.toThrow(/no such column/);
    expect(await schema()).toEqual(schemaBefore);
    expect((await rows('SELECT send_id FROM sends ORDER BY created_at DESC, send_id DESC')).map((r) => r.send_id)).toEqual(['s2', 's1', 's3']);

    await db.migrate.latest({ migrationSource });
    expect(await pagesAndExpected()).toEqual(before);
    expect(await schema()).toEqual(schemaBefore);
    expect(await order()).toEqual(orderBefore);

    // The triggers made again keep counting: the parked run resumes and ends.
    expect(await waitingCounts()).toEqual([{ workflow: 'keeper', runs: 1 }, { workflow: 'payouts', runs: 1 }]);
    await writer.append([aResume('parked', T0 + 3 * MINUTE), aFinish('parked', T0 + 4 * MINUTE)]);
    expect(await waitingCounts()).toEqual([{ workflow: 'payouts', runs: 1 }]);
  });

  if (!onSqlite) it('adds the items and then the lines to a journal written before them, computed from its rows, and takes them away on the way down', async () => {
    await awkwardJournal();
    const before = await pagesAndExpected();
    expect(before[0]).toEqual(before[1]);
    expect(before[2]).toEqual(before[3]);
    expect(before[4]).toEqual(before[5]);
    expect(before.map((page) => page.length)).toEqual([3, 3, 6, 6, 2, 2]);
    const generated = async (): Promise<Row[]> =>
      rows("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_generated = 'ALWAYS' ORDER BY 1, 2");
    const lines = ['approvals', 'runs', 'sends'].map((table) => ({ table_name: table, column_name: 'line' }));
    expect(await generated()).toEqual(lines);

    // 0030 down first: STORED_JSON's body of to_json again, runs' pages filled full again, the pages as they were.
    const fillfactor = async (): Promise<Row[]> => rows("SELECT reloptions FROM pg_class WHERE relname = 'runs' AND relnamespace = current_schema()::regnamespace");
    const storedJson = async (): Promise<string> => String((await rows("SELECT prosrc, pg_get_functiondef(oid) AS def FROM pg_proc WHERE proname = 'chainflow_json' AND pg_get_function_arguments(oid) = 'value text'"))[0]!.def);
    expect(await fillfactor()).toEqual([{ reloptions: ['fillfactor=70'] }]);
    expect(await storedJson()).toContain('json_object');
    await db.migrate.down({ migrationSource, name: '0030_runs_updates' });
    expect(await fillfactor()).toEqual([{ reloptions: null }]);
    expect(await storedJson()).toContain('to_json');
    expect(await pagesAndExpected()).toEqual(before);
    // Then 0029 (its triggers read the runs' lines): the side rows keep no line; then 0027 down: the items of
    // 0025 again, and the pages read them as before.
    const sideLines = async (): Promise<Row[]> =>
      rows("SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'line' AND table_name IN ('run_relayers', 'run_step_ids') ORDER BY 1");
    expect(await sideLines()).toEqual([{ table_name: 'run_relayers' }, { table_name: 'run_step_ids' }]);
    await db.migrate.down({ migrationSource, name: '0029_side_lines' });
    expect(await sideLines()).toEqual([]);
    await db.migrate.down({ migrationSource, name: '0027_generated_lines' });
    expect(await generated()).toEqual(lines.map((c) => ({ ...c, column_name: 'item' })));
    await db.migrate.down({ migrationSource, name: '0025_generated_items' });
    expect(await generated()).toEqual([]);
    expect(await rows("SELECT proname FROM pg_proc WHERE proname = 'chainflow_json'")).toEqual([]);

    await db.migrate.latest({ migrationSource });
    expect(await generated()).toEqual(lines);
    expect(await sideLines()).toEqual([{ table_name: 'run_relayers' }, { table_name: 'run_step_ids' }]);
    expect(await fillfactor()).toEqual([{ reloptions: ['fillfactor=70'] }]);
    expect(await storedJson()).toContain('json_object');
    expect(await pagesAndExpected()).toEqual(before);
  });

  // The stored items' JSON of a text (STORED_JSON, inlined since 0030) is to_json's, and JSON.stringify's.
  if (!onSqlite) it('writes every text as JSON as to_json and JSON.stringify do, and NULL as null', async () => {
    // PostgreSQL's text holds no NUL and no lone surrogate (not UTF-8).
    const storable = (text: string): boolean => !text.includes('\u0000') && text === Buffer.from(text, 'utf8').toString('utf8');
    const texts = [
      ...fc.sample(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string()), 3000),
      'q"', 'b\\', '\u0001\u001f\u007f', '\b\f\n\r\t', '\u2028\u2029', '😀é', '}', '{"" : "x"}', '',
    ].filter(storable);
    expect(texts.length).toBeGreaterThan(2000);
    const got = await rows("SELECT s, chainflow_json(s) AS j, coalesce(to_json(s)::text, 'null') AS t FROM unnest(?::text[]) WITH ORDINALITY AS u(s, i) ORDER BY i", [texts]);
    expect(got.map((r) => r.j)).toEqual(texts.map((text) => JSON.stringify(text)));
    expect(got.map((r) => r.j)).toEqual(got.map((r) => r.t));
    expect(await rows('SELECT chainflow_json(NULL::text) AS j, chainflow_json(NULL::bigint) AS b, chainflow_json(-12::bigint) AS n')).toEqual([{ j: 'null', b: 'null', n: '-12' }]);
  });

  it('keeps the items current through their own events, however they are written', async () => {
    await writer.append(aRun({ runId: 'life', at: T0, send: { sendId: 'life', status: 'queued' }, status: 'running' }));
    const item = async (): Promise<Row> => JSON.parse((await history.listSendItems(ALL, { limit: 10 }, links))[0]!.json) as Row;
    expect(await item()).toMatchObject({ status: 'queued', tx_hash: null, explorer_url: null });
    await writer.append([{ type: 'send.submitted', at: new Date(T0 + MINUTE).toISOString(), send_id: 'life', tx_hash: '0xabc', nonce: 1 }]);
    expect(await item()).toMatchObject({ status: 'submitted', tx_hash: '0xabc', explorer_url: 'https://scan.example/sepolia/11155111/tx/0xabc' });
    await writer.append([aFinish('life', T0 + 2 * MINUTE)]);
    await writer.append(aRun({ runId: 'ask', at: T0 + HOUR, approval: { approvalId: 'ask-1' }, park: { waitKind: 'approval' } }));
    await writer.append([{ type: 'approval.decided', at: new Date(T0 + 2 * HOUR).toISOString(), approval_id: 'ask-1', decision: 'approved', by: 'dave' }]);
    expect(JSON.parse((await history.listApprovalItems(ALL, { limit: 10 }))[0]!.json)).toMatchObject({ status: 'approved', decided_by: 'dave', decided_at: new Date(T0 + 2 * HOUR).toISOString() });
    const pages = await pagesAndExpected();
    expect(pages[0]).toEqual(pages[1]);
    expect(pages[2]).toEqual(pages[3]);
    expect(JSON.parse(pages[2]!.find((text) => text.includes('"run_id":"life"'))!)).toMatchObject({ run_id: 'life', status: 'succeeded', tx_hashes: ['0xabc'] });
    expect(pages[4]).toEqual(pages[5]);
    // A stored generated column: no statement can write it, so none can leave it stale.
    for (const table of ['sends', 'runs', 'approvals']) await expect(db.raw(`UPDATE ${table} SET ${onSqlite ? 'item' : 'line'} = 'x'`)).rejects.toThrow(refused(table));
    expect(await pagesAndExpected()).toEqual(pages);
  });
});

it('writes a link as JSON.stringify does, whatever it holds', () => {
  fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string()), (text) => {
    expect(jsonString(text)).toBe(JSON.stringify(text));
  }), { numRuns: 2000 });
  for (const text of ['https://x.example/tx/0xab', 'q"', 'b\\', '\u0000\u001f', '\u2028', '\ud800', '😀', '']) expect(jsonString(text)).toBe(JSON.stringify(text));
});
