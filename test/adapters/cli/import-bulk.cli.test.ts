/**
 * `chainflow journal import` into an empty SQLite database writes through a rollback journal instead of the WAL
 * (sqlite-bulk-load.ts): killed (kill -9) in the middle, it leaves a hot journal that the next opening plays back, so
 * the database is empty again; and a command started while it loads waits for it rather than failing.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import sqlite3 from 'sqlite3';
import { aRun, HOUR, T0, toNdjson } from '../../mothers/journal-events';
import { assertBuilt, BIN, chainflow } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

/** Runs `sql` on a connection of its own to the SQLite file (which plays back a hot journal first), closed afterwards. */
const query = (file: string, sql: string): Promise<Record<string, unknown>[]> =>
  new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (err) => {
      if (err) return reject(err);
      db.all(sql, (e, rows) => db.close(() => (e ? reject(e) : resolve(rows as Record<string, unknown>[]))));
    });
  });

/** `chainflow ARGS` in `cwd`, as a child process: its exit code and output. */
function run(args: readonly string[], cwd: string): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Waits until the import's transaction has written through its rollback journal (the file exists only then). */
async function loading(journal: string, child: ReturnType<typeof spawn>): Promise<void> {
  for (let i = 0; i < 6000 && !fs.existsSync(journal) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 10));
  expect(fs.existsSync(journal)).toBe(true);
  expect(child.exitCode).toBeNull();
}

describe('chainflow journal import into an empty SQLite database', () => {
  let dir: string;
  let file: string;
  let db: string;
  let count: number;
  beforeAll(() => assertBuilt());
  beforeEach(() => {
    dir = makeTempDir('chainflow-import-bulk-');
    file = path.join(dir, 'big.ndjson');
    const events = Array.from({ length: 8000 }, (_, i) => aRun({ runId: `bulk-${i}`, at: T0 + i * (HOUR / 100) })).flat();
    count = events.length;
    fs.writeFileSync(file, toNdjson(events));
    db = path.join(dir, '.chainflow', 'chainflow.db');
    // The schema first (the import's own migrations are not what these tests are about).
    expect(chainflow(['history', '--json'], { cwd: dir }).status).toBe(0);
  });
  afterEach(() => removeTempDir(dir));

  it('killed while it loads, leaves a journal that the next opening plays back: empty again, and the import then whole', async () => {
    const { child, done } = run(['journal', 'import', file], dir);
    await loading(`${db}-journal`, child);
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');

    expect(await query(db, 'SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM runs) AS runs')).toEqual([{ events: 0, runs: 0 }]);
    // The journal file itself may stay behind: killed before its header reached the disk, it is not hot (the
    // database was not written yet) and SQLite leaves it to the next write. What counts is the database.
    const again = chainflow(['journal', 'import', file], { cwd: dir });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`imported ${count} events \\(0 already present\\)`));
    expect(await query(db, 'SELECT (SELECT count(*) FROM events) AS events, (SELECT journal_mode FROM pragma_journal_mode) AS mode')).toEqual([{ events: count, mode: 'wal' }]);
  }, 180_000);

  it('a command started while it loads waits for it, then runs (no "database is locked")', async () => {
    const importing = run(['journal', 'import', file], dir);
    await loading(`${db}-journal`, importing.child);
    const history = await run(['history', '--json'], dir).done;
    const imported = await importing.done;
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(new RegExp(`imported ${count} events \\(0 already present\\)`));
    expect(history.stderr).not.toMatch(/locked|busy/i);
    expect(history.code).toBe(0);
    expect(await query(db, 'SELECT journal_mode FROM pragma_journal_mode')).toEqual([{ journal_mode: 'wal' }]);
  }, 180_000);
});
