import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Knex } from 'knex';
import { openDatabase } from '../../../src/adapters/knex/connection';
import { KnexHistoryRepository } from '../../../src/adapters/knex/knex-history.repository';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { migrationSource } from '../../../src/adapters/knex/migrations';
import { jsonString } from '../../../src/adapters/knex/rows';
import { toSendAttemptItem } from '../../../src/application/history/items';
import { aRun, MINUTE, T0 } from '../../mothers/journal-events';

type Row = Record<string, unknown>;

describe("the sends' stored items on SQLite (migration 0010)", () => {
  let dir: string;
  let db: Knex;
  let writer: KnexJournalWriter;
  let history: KnexHistoryRepository;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chainflow-send-items-'));
    db = await openDatabase(`sqlite:${join(dir, 'journal.db')}`);
    writer = new KnexJournalWriter(db);
    history = new KnexHistoryRepository(db);
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const explorer = (network: string, chainId: number, txHash: string): string | null => `https://scan.example/${network}/${chainId}/tx/${txHash}`;
  const ALL = { equals: {} };
  const awkward = 'q"b\\s/\n\t\r\u0001 é ✓ \u2028 😀';
  const rows = async (sql: string): Promise<Row[]> => (await db.raw(sql)) as Row[];
  const indexes = (): Promise<Row[]> => rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sends' ORDER BY name");
  /** The page of every send, and what listSends renders of them: they must be the same text. */
  const pageAndExpected = async (): Promise<[string[], string[]]> => {
    const items = await history.listSendItems(ALL, { limit: 100 }, explorer);
    const sends = await history.listSends(ALL, { limit: 100 });
    return [items.map((i) => i.json), sends.map((s) => JSON.stringify(toSendAttemptItem(s, explorer)))];
  };

  it('rebuilds a journal written before it with every item, index and row order, and takes them away on the way down', async () => {
    await writer.append([
      ...aRun({ runId: 'r1', at: T0, send: { sendId: 's1' } }),
      ...aRun({ runId: 'r2', at: T0 + MINUTE, send: { sendId: 's2', status: 'queued' }, status: 'running' }),
      ...aRun({ runId: 'r3', at: '1969-12-31T23:59:58.999Z', send: { sendId: 's3', relayer: awkward, network: `net ${awkward}`, chainId: 2 ** 31 } }),
    ]);
    const [before, expected] = await pageAndExpected();
    expect(before).toEqual(expected);
    expect(before).toHaveLength(3);
    const indexesBefore = await indexes();
    expect(indexesBefore.length).toBeGreaterThan(5);
    const order = await rows('SELECT rowid, send_id FROM sends ORDER BY rowid');

    await db.migrate.down({ migrationSource, name: '0010_send_items' });
    await expect(db.raw('SELECT item FROM sends')).rejects.toThrow(/no such column/);
    expect(await indexes()).toEqual(indexesBefore);
    expect((await history.listSends(ALL, { limit: 100 })).map((s) => s.sendId)).toEqual(['s2', 's1', 's3']);

    await db.migrate.latest({ migrationSource });
    expect(await pageAndExpected()).toEqual([before, expected]);
    expect(await indexes()).toEqual(indexesBefore);
    expect(await rows('SELECT rowid, send_id FROM sends ORDER BY rowid')).toEqual(order);
  });

  it('keeps the item of a send current through its own events, however it is written', async () => {
    await writer.append(aRun({ runId: 'life', at: T0, send: { sendId: 'life', status: 'queued' }, status: 'running' }));
    const item = async (): Promise<Row> => JSON.parse((await history.listSendItems(ALL, { limit: 10 }, explorer))[0]!.json) as Row;
    expect(await item()).toMatchObject({ status: 'queued', tx_hash: null, explorer_url: null });
    await writer.append([{ type: 'send.submitted', at: new Date(T0 + MINUTE).toISOString(), send_id: 'life', tx_hash: '0xabc', nonce: 1 }]);
    expect(await item()).toMatchObject({ status: 'submitted', tx_hash: '0xabc', explorer_url: 'https://scan.example/sepolia/11155111/tx/0xabc' });
    const [page, expected] = await pageAndExpected();
    expect(page).toEqual(expected);
    // A stored generated column: no statement can write it, so none can leave it stale.
    await expect(db.raw("UPDATE sends SET item = 'x'")).rejects.toThrow(/update of sends failed/);
    expect(await pageAndExpected()).toEqual([page, expected]);
  });

  it('writes a link as JSON.stringify does, whatever it holds', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string()), (text) => {
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }), { numRuns: 2000 });
    for (const text of ['https://x.example/tx/0xab', 'q"', 'b\\', '\u0000\u001f', '\u2028', '\ud800', '😀', '']) expect(jsonString(text)).toBe(JSON.stringify(text));
  });
});
