/**
 * `chainflow journal import` is all-or-nothing even when the process is killed (kill -9) while it writes: its one
 * transaction never commits, and SQLite rolls its uncommitted pages back at the next open (the WAL's, or those of the
 * rollback journal of a load into an empty database, whichever this run took: the probes below hold the database open
 * now and then, which keeps an import in WAL mode; see import-bulk.cli.test.ts for the rollback journal's own test).
 * Importing the same file again then brings every event in.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import sqlite3 from 'sqlite3';
import { aRun, HOUR, T0, toNdjson } from '../../mothers/journal-events';
import { assertBuilt, BIN, chainflow } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

const RUNS = 20_000;

/** Runs `fn` on a connection of its own to the SQLite file, closed afterwards. */
function withDb<T>(file: string, fn: (db: sqlite3.Database, done: (err: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (err) => {
      if (err) return reject(err);
      fn(db, (e, value) => db.close(() => (e ? reject(e) : resolve(value as T))));
    });
  });
}

const countRows = (file: string, table: string): Promise<number> =>
  withDb(file, (db, done) => db.get(`SELECT count(*) AS n FROM ${table}`, (e, row: { n: number } | undefined) => done(e, row?.n)));

/** Whether another connection holds the write lock (a transaction under way): BEGIN IMMEDIATE finds it busy. */
const writeLocked = (file: string): Promise<boolean> =>
  withDb(file, (db, done) => db.exec('PRAGMA busy_timeout = 0; BEGIN IMMEDIATE', (e) => {
    if (e) return done(null, /SQLITE_BUSY/.test(e.message));
    db.exec('ROLLBACK', (r) => done(r, false));
  }));

describe('chainflow journal import killed while it writes', () => {
  let dir: string;
  beforeAll(() => assertBuilt());
  beforeEach(() => {
    dir = makeTempDir('chainflow-import-kill-');
  });
  afterEach(() => removeTempDir(dir));

  it('leaves nothing behind, and the same file imports whole afterwards', async () => {
    const file = path.join(dir, 'big.ndjson');
    const events = Array.from({ length: RUNS }, (_, i) => aRun({ runId: `kill-${i}`, at: T0 + i * (HOUR / 100) })).flat();
    fs.writeFileSync(file, toNdjson(events));
    const db = path.join(dir, '.chainflow', 'chainflow.db');
    // The schema first (the import's own migrations are not what this test is about).
    expect(chainflow(['history', '--json'], { cwd: dir }).status).toBe(0);

    const child = spawn(process.execPath, [BIN, 'journal', 'import', file], { cwd: dir, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    // Killed in the middle of its one transaction: while it holds the write lock at two probes 200 ms apart (the
    // migrations' lock at start-up is brief; validation holds none).
    let locked = false;
    for (let i = 0; i < 600 && !locked && child.exitCode === null; i++) {
      locked = (await writeLocked(db)) && (await new Promise((r) => setTimeout(r, 200)), await writeLocked(db));
      if (!locked) await new Promise((r) => setTimeout(r, 25));
    }
    expect(locked).toBe(true);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    expect(await countRows(db, 'events')).toBe(0);
    expect(await countRows(db, 'runs')).toBe(0);

    const again = chainflow(['journal', 'import', file], { cwd: dir });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`imported ${events.length} events \\(0 already present\\)`));
    expect(await countRows(db, 'runs')).toBe(RUNS);
    expect(await countRows(db, 'events')).toBe(events.length);
  }, 120_000);
});
