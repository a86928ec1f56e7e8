import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../../../src/adapters/storage';
import { writeUnlessChanged } from '../../../src/adapters/sqlite/sqlite-guarded-write';
import type { UnlockedSelect } from '../../../src/adapters/knex/dialect';
import { sqliteDialect } from '../../../src/adapters/sqlite/sqlite-dialect';
import { SqliteWriteSession } from '../../../src/adapters/sqlite/sqlite-session';
import { StorageError } from '../../../src/domain/errors';

/**
 * An optimistic write reads without the lock and commits its writes only if no other connection committed since its
 * first read: it must never commit over a change it did not see, and must leave the connection as it found it.
 */
describe('SQLite optimistic write: committed only over what was read', () => {
  let dir: string;
  let db: Knex;
  /** Another connection to the file, as another process would have. */
  let other: Knex;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chainflow-guarded-'));
    db = await openDatabase(`sqlite:${join(dir, 'guarded.db')}`, 'tool', { busyTimeoutMs: 50 });
    other = await openDatabase(`sqlite:${join(dir, 'guarded.db')}`);
    await db.raw('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  });
  afterEach(async () => {
    await db.destroy();
    await other.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const texts = async (): Promise<string[]> => ((await db.raw('SELECT text FROM notes ORDER BY id')) as { text: string }[]).map((r) => r.text);
  /** The first read of a decision: how many notes there are, and the data version that statement read. */
  const versionOf = async (select: UnlockedSelect): Promise<number> =>
    Number((await select('SELECT data_version, (SELECT count(*) FROM notes) AS n FROM pragma_data_version', []))[0]!.data_version);
  const note = (text: string): { sql: string; bindings: unknown[] } => ({ sql: 'INSERT INTO notes (text) VALUES (?)', bindings: [text] });

  it('commits the writes when nothing changed since the first read, this connection’s own earlier commits included', async () => {
    await db.raw("INSERT INTO notes (text) VALUES ('own')");
    expect(await writeUnlessChanged(db, async (select) => ({ version: await versionOf(select), writes: [note("it's"), note('?')] }))).toBe(true);
    expect(await texts()).toEqual(['own', "it's", '?']);
  });

  it('writes nothing when another connection committed between the read and the write, and the next one commits', async () => {
    const written = await writeUnlessChanged(db, async (select) => {
      const version = await versionOf(select);
      await other.raw("INSERT INTO notes (text) VALUES ('theirs')");
      return { version, writes: [note('mine')] };
    });
    expect(written).toBe(false);
    expect(await texts()).toEqual(['theirs']);
    expect(await writeUnlessChanged(db, async (select) => ({ version: await versionOf(select), writes: [note('mine')] }))).toBe(true);
    expect(await texts()).toEqual(['theirs', 'mine']);
  });

  it('a decision with nothing to write stands only if its reads saw one state', async () => {
    expect(await writeUnlessChanged(db, async (select) => ({ version: await versionOf(select), writes: [] }))).toBe(true);
    expect(await writeUnlessChanged(db, async (select) => {
      const version = await versionOf(select);
      await other.raw("INSERT INTO notes (text) VALUES ('theirs')");
      await select('SELECT count(*) AS n FROM notes', []);
      return { version, writes: [] };
    })).toBe(false);
  });

  it('writes nothing when the reads decide so', async () => {
    expect(await writeUnlessChanged(db, async (select) => {
      await versionOf(select);
      return undefined;
    })).toBe(false);
    expect(await texts()).toEqual([]);
  });

  it('writes nothing while another process holds the write lock past the busy timeout', async () => {
    const written = await SqliteWriteSession.transact(other, sqliteDialect, async (session) => {
      session.write("INSERT INTO notes (text) VALUES ('theirs')");
      await session.select('SELECT 1');
      return writeUnlessChanged(db, async (select) => ({ version: await versionOf(select), writes: [note('mine')] }));
    });
    expect(written).toBe(false);
    expect(await texts()).toEqual(['theirs']);
  });

  it('a failing write rolls the whole script back as a StorageError without its values, and the connection writes on', async () => {
    const failing = writeUnlessChanged(db, async (select) => ({
      version: await versionOf(select), writes: [note('first'), { sql: 'INSERT INTO notes (id, text) VALUES (?, NULL)', bindings: [7] }],
    }));
    await expect(failing).rejects.toBeInstanceOf(StorageError);
    await expect(failing).rejects.toThrow(/NOT NULL constraint failed on notes\.text/);
    expect(await texts()).toEqual([]);
    expect(await writeUnlessChanged(db, async (select) => ({ version: await versionOf(select), writes: [note('after')] }))).toBe(true);
    expect(await texts()).toEqual(['after']);
  });
});
