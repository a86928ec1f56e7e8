import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { insertRows } from '../../../src/adapters/knex/bulk';
import { openDatabase } from '../../../src/adapters/storage';
import { sqliteDialect } from '../../../src/adapters/sqlite/sqlite-dialect';
import { SqliteWriteSession } from '../../../src/adapters/sqlite/sqlite-session';

/**
 * A write session sends the writes it holds back as one script of SQL text (values inlined as literals): whatever a
 * value holds, and however long, it is stored exactly as given, and a failed write leaves nothing behind.
 */
describe('SQLite write session: values travel as SQL text', () => {
  let dir: string;
  let db: Knex;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chainflow-session-'));
    db = await openDatabase(`sqlite:${join(dir, 'session.db')}`);
    await db.raw('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT, body TEXT, amount TEXT)');
  });
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await db.raw('DELETE FROM notes');
  });

  const awkward = [
    "it's", "''", '?', '??', ';', "'); DROP TABLE notes; --", 'line\nbreak\r\n', 'tab\there', '\\', '"quoted"',
    'émoji 🚀 and 中文', '\u2028\u2029', '',
  ];
  const rows = (): Promise<Record<string, unknown>[]> => db.raw('SELECT * FROM notes ORDER BY id');

  it('every awkward string, bound one by one, comes back as it was', async () => {
    await SqliteWriteSession.transact(db, sqliteDialect, async (session) => {
      awkward.forEach((text, id) => session.write('INSERT INTO notes (id, text) VALUES (?, ?)', [id, text]));
    });
    expect((await rows()).map((r) => r.text)).toEqual(awkward);
  });

  it('a document of megabytes (an import batch) with quotes, question marks and control characters is stored whole', async () => {
    const body = (i: number): Record<string, unknown> => ({ i, note: `${awkward.join('|')}\u0000\u0001 ${'x'.repeat(250)}`, wei: (10n ** 70n + BigInt(i)).toString() });
    const many = Array.from({ length: 6000 }, (_, i) => [i, awkward[i % awkward.length], body(i), (2n ** 255n + BigInt(i)).toString()]);
    expect(JSON.stringify(many).length).toBeGreaterThan(2_000_000);
    await SqliteWriteSession.transact(db, sqliteDialect, async (session) => {
      await insertRows(session, 'notes', ['id', 'text', 'body', 'amount'], many, { jsonColumns: ['body'] });
    });
    const stored = await rows();
    expect(stored).toHaveLength(many.length);
    stored.forEach((r, i) => {
      expect(r.text).toBe(many[i]![1]);
      expect(JSON.parse(r.body as string)).toEqual(many[i]![2]);
      expect(r.amount).toBe(many[i]![3]);
    });
  });

  it('rows stored through a session (a VALUES list) are the rows knex stores (a JSON document): values and types', async () => {
    const mixed: unknown[][] = [
      [1, "it's", { nested: ["a'b", 1.5, null] }, 42],
      [2, '', [], -7.25],
      [3, null, null, 9_007_199_254_740_991],
      [4, undefined, 'text', Number.NaN],
      [5, true, false, 1e21],
      [6, false, 0, -0],
    ];
    const stored = async (through: 'session' | 'knex'): Promise<unknown[]> => {
      await db.raw('DELETE FROM notes');
      if (through === 'session') {
        await SqliteWriteSession.transact(db, sqliteDialect, async (session) => insertRows(session, 'notes', ['id', 'text', 'body', 'amount'], mixed, { jsonColumns: ['body'] }));
      } else {
        await insertRows(db, 'notes', ['id', 'text', 'body', 'amount'], mixed, { jsonColumns: ['body'] });
      }
      return db.raw('SELECT id, text, typeof(text) AS tt, body, typeof(body) AS bt, amount, typeof(amount) AS at FROM notes ORDER BY id');
    };
    const viaKnex = await stored('knex');
    expect(viaKnex).toHaveLength(mixed.length);
    expect(await stored('session')).toEqual(viaKnex);
  });

  it('a read sees the writes held back before it, in order', async () => {
    const seen = await SqliteWriteSession.transact(db, sqliteDialect, async (session) => {
      session.write('INSERT INTO notes (id, text) VALUES (?, ?)', [1, "first's"]);
      session.write('UPDATE notes SET text = ? WHERE id = ?', ["second's", 1]);
      return session.select('SELECT text FROM notes WHERE id = ?', [1]);
    });
    expect(seen).toEqual([{ text: "second's" }]);
  });

  it('a write that fails, started early or at the commit, rolls back every write of the transaction', async () => {
    await expect(SqliteWriteSession.transact(db, sqliteDialect, async (session) => {
      session.write('INSERT INTO notes (id, text) VALUES (?, ?)', [1, 'kept?']);
      session.flushSoon();
      session.write('INSERT INTO notes (id, text) VALUES (?, ?)', [1, 'the same key again']);
    })).rejects.toThrow(/UNIQUE|constraint/i);
    await expect(SqliteWriteSession.transact(db, sqliteDialect, async (session) => {
      session.write('INSERT INTO notes (id, text) VALUES (?, ?)', [2, 'x']);
      session.flushSoon();
      session.write('INSERT INTO notes (id, text) VALUES (?, ?)', [2, 'y']);
      session.flushSoon();
      await new Promise((resolve) => setTimeout(resolve, 20));
    })).rejects.toThrow(/UNIQUE|constraint/i);
    expect(await rows()).toEqual([]);
  });
});
