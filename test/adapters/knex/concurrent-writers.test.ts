/**
 * Several processes writing one SQLite journal (a `chainflow run` beside the server, two workers): a writer waits
 * for the lock another process holds, and tries its whole transaction again past the busy timeout, instead of
 * failing with SQLITE_BUSY.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { openDatabase } from '../../../src/adapters/storage';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { aRun, T0 } from '../../mothers/journal-events';
import { assertBuilt } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

const DIST = path.resolve(__dirname, '../../../dist/src');

/** Runs a node script in another process; resolves with its exit code and output. */
function child(script: string): { done: Promise<{ code: number | null; out: string }>; stdout: () => string } {
  const proc = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => void (out += d.toString()));
  return { done: new Promise((resolve) => proc.once('exit', (code) => resolve({ code, out }))), stdout: () => out };
}

/** Another process takes SQLite's write lock on `file` and keeps it for `ms` (resolves once it holds it). */
async function holdWriteLock(file: string, ms: number): Promise<ReturnType<typeof child>> {
  const holder = child(`
    const sqlite3 = require(${JSON.stringify(require.resolve('sqlite3'))});
    const db = new sqlite3.Database(${JSON.stringify(file)});
    db.exec('PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE; INSERT INTO meta (key, value) VALUES (\\'held\\', \\'1\\')', (err) => {
      if (err) { console.error(err.message); process.exit(1); }
      console.log('locked');
      setTimeout(() => db.exec('COMMIT', (e) => { db.close(); process.exit(e ? 1 : 0); }), ${ms});
    });`);
  for (let i = 0; i < 200 && !holder.stdout().includes('locked'); i++) await new Promise((r) => setTimeout(r, 25));
  expect(holder.stdout()).toContain('locked');
  return holder;
}

describe('SQLite journal written by several processes', () => {
  let dir: string;
  let file: string;
  beforeAll(() => assertBuilt());
  beforeEach(() => {
    dir = makeTempDir('chainflow-writers-');
    file = path.join(dir, 'journal.db');
  });
  afterEach(() => removeTempDir(dir));

  it('an append waits while another process holds the write lock past the busy timeout, then lands', async () => {
    const db = await openDatabase(`sqlite:${file}`, 'tool', { busyTimeoutMs: 50 });
    try {
      const writer = new KnexJournalWriter(db);
      // Another process takes the write lock and keeps it for 1.5 s (30 busy timeouts of this connection).
      const holder = await holdWriteLock(file, 1500);
      const started = Date.now();
      // A transaction's work runs once it has the lock, never while it is still waiting for it.
      let ran = 0;
      const other = db.transaction(async (trx) => {
        ran++;
        await trx('meta').insert({ key: 'other', value: '1' });
      });
      await expect(writer.append(aRun({ runId: 'waited', at: T0 }))).resolves.toMatchObject({ duplicates: 0 });
      await other;
      expect(ran).toBe(1);
      expect(Date.now() - started).toBeGreaterThan(1000);
      expect((await holder.done).code).toBe(0);
      expect(await new KnexRunRepository(db).get('waited')).toMatchObject({ runId: 'waited', status: 'succeeded' });
      expect(await db('meta').where({ key: 'held' }).first()).toBeDefined();
    } finally {
      await db.destroy();
    }
  });

  it('a statement outside any transaction waits while another process holds the write lock past the busy timeout, then lands', async () => {
    const db = await openDatabase(`sqlite:${file}`, 'tool', { busyTimeoutMs: 50 });
    try {
      // Another process takes the write lock and keeps it for 1.5 s (30 busy timeouts of this connection), as an
      // import's one transaction does while the engine writes its single statements.
      const holder = await holdWriteLock(file, 1500);
      const started = Date.now();
      await db('meta').insert({ key: 'single', value: '1' });
      await db.raw('UPDATE meta SET value = ? WHERE key = ?', ['2', 'single']);
      expect(Date.now() - started).toBeGreaterThan(1000);
      expect((await holder.done).code).toBe(0);
      expect(await db('meta').where({ key: 'single' }).first()).toMatchObject({ value: '2' });
      expect(await db('meta').where({ key: 'held' }).first()).toBeDefined();
    } finally {
      await db.destroy();
    }
  });

  it('two processes appending at once: every run of both lands whole', async () => {
    // The schema first, so that neither child races the other through the migrations.
    await (await openDatabase(`sqlite:${file}`)).destroy();
    const script = (prefix: string): string => `
      require('reflect-metadata');
      const { openDatabase } = require(${JSON.stringify(path.join(DIST, 'adapters/storage'))});
      const { KnexJournalWriter } = require(${JSON.stringify(path.join(DIST, 'adapters/knex/knex-journal.writer'))});
      (async () => {
        const db = await openDatabase(${JSON.stringify(`sqlite:${file}`)}, 'tool', { busyTimeoutMs: 20 });
        const writer = new KnexJournalWriter(db);
        const at = (n, i) => new Date(${T0} + n * 60000 + i * 1000).toISOString();
        for (let n = 0; n < 60; n++) {
          const run = '${prefix}-' + n;
          await writer.append([{ type: 'run.started', at: at(n, 0), run_id: run, workflow: 'w', session: 'live', trigger: { kind: 'manual' } }]);
          await writer.append([{ type: 'step.started', at: at(n, 1), run_id: run, step_run_id: run + '.s', step_id: 's', step_type: 'http_call', attempt: 1 }]);
          await writer.append([
            { type: 'step.finished', at: at(n, 2), run_id: run, step_run_id: run + '.s', status: 'succeeded' },
            { type: 'run.finished', at: at(n, 3), run_id: run, status: 'succeeded' },
          ]);
        }
        await db.destroy();
        console.log('done');
      })().catch((err) => { console.error(err.code || '', err.message); process.exit(1); });`;
    const [a, b] = await Promise.all([child(script('a')).done, child(script('b')).done]);
    expect(a).toEqual({ code: 0, out: 'done\n' });
    expect(b).toEqual({ code: 0, out: 'done\n' });
    const db = await openDatabase(`sqlite:${file}`);
    try {
      const [{ runs }] = await db.raw("SELECT count(*) AS runs FROM runs WHERE status = 'succeeded'");
      const [{ events }] = await db.raw('SELECT count(*) AS events FROM events');
      expect(Number(runs)).toBe(120);
      expect(Number(events)).toBe(120 * 4);
      const [stats] = await db.raw("SELECT success_count FROM workflow_stats WHERE workflow = 'w'");
      expect(Number(stats.success_count)).toBe(120);
    } finally {
      await db.destroy();
    }
  }, 60_000);
});
