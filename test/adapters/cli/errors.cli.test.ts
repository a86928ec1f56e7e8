/**
 * Every CLI error is one line naming the flag, argument or file and what is wrong, with the exit code of
 * docs/decisions.md (2: bad flags or arguments; 1: a failure, e.g. something named that does not exist or a
 * state that forbids it), never a stack trace and never a value of the journal or the config (issue #13, items 2
 * and 4). The real compiled program, as a child process.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import knexFactory from 'knex';
import { aRun, T0, toNdjson } from '../../mothers/journal-events';
import { assertBuilt, chainflow, hasStackTrace, lines, type CliResult } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

beforeAll(() => assertBuilt());

let dir: string;
beforeAll(() => {
  dir = makeTempDir('chainflow-cli-errors-');
});
afterAll(() => removeTempDir(dir));

const run = (...args: string[]): CliResult => chainflow(args, { cwd: dir });

/** One line on stderr, matching `pattern`, the given exit code, nothing on stdout, no stack trace. */
function expectOneLine(res: CliResult, status: number, pattern: RegExp): void {
  expect({ status: res.status, stderr: lines(res.stderr) }).toEqual({ status, stderr: [expect.stringMatching(pattern)] });
  expect(hasStackTrace(res.stderr)).toBe(false);
  expect(res.stdout).toBe('');
}

describe('bad flags and arguments: exit 2, one line naming the flag or argument and the reason', () => {
  it.each([
    [['retention'], /^Error: --older-than: required \(/],
    [['runs', 'diff', 'A'], /^Error: missing argument run-b \(second run id\)/],
    [['start', '--port', 'abc'], /^Error: --port: expected an integer/],
    [['start', '--port', '0'], /^Error: --port: expected an integer greater than or equal to 1$/],
    [['history', '--bogus'], /^Error: --bogus: unknown flag/],
    [['history', '--limit'], /^Error: --limit: expects a value/],
    [['history', '--status', 'nope'], /^Error: --status: must be one of running, /],
    [['history', 'txs', '--tx-hash', ''], /^Error: --tx-hash: /],
    [['retention', '--older-than', '5x'], /^Error: --older-than: is not a duration/],
    [['runs', 'timeline', 'bad id'], /^Error: run-id: malformed run id$/],
    [['token', 'mint', 'bad name'], /^Error: name: /],
    [['nope'], /^Error: command 'nope' not found/],
  ])('chainflow %j', (args, pattern) => {
    expectOneLine(run(...args), 2, pattern);
  });
});

describe('failures: exit 1, one line naming what failed', () => {
  it('journal import of a missing file names the file, before any storage is created', () => {
    const fresh = makeTempDir('chainflow-cli-missing-');
    try {
      const res = chainflow(['journal', 'import', 'missing.ndjson'], { cwd: fresh });
      expectOneLine(res, 1, /^Error: missing\.ndjson: no such file or directory$/);
      expect(fs.existsSync(path.join(fresh, '.chainflow'))).toBe(false);
    } finally {
      removeTempDir(fresh);
    }
  });

  it('an --out file that cannot be written names the file', () => {
    expectOneLine(run('history', 'export', '--out', path.join(dir, 'no', 'such', 'dir.json')), 1, /^Error: .*dir\.json: no such file or directory$/);
    expectOneLine(run('spend', 'export', '--out', dir), 1, /: is a directory$/);
  });

  it('an unknown run names the argument', () => {
    expectOneLine(run('runs', 'timeline', 'no-such-run'), 1, /^Error: run-id: run not found$/);
    expectOneLine(run('runs', 'diff', 'no-such-a', 'no-such-b'), 1, /^Error: run-(a|b): run not found$/);
  });

  it('a duplicate token mint and an unknown token revoke agree: both are failures (exit 1)', () => {
    expect(run('token', 'mint', 'dup').status).toBe(0);
    expectOneLine(run('token', 'mint', 'dup'), 1, /^Error: name: a bearer named 'dup' exists already/);
    expectOneLine(run('token', 'revoke', 'never-minted'), 1, /^Error: name: live bearer 'never-minted' not found$/);
  });
});

describe('a failed import says what failed and where, in one line, without the driver message or its values', () => {
  it('a storage failure during the import: one line naming the statement, no SQL, no value, nothing imported', async () => {
    const work = makeTempDir('chainflow-cli-storage-');
    try {
      const secret = 'sk-storage-secret-0123456789';
      writeConfig(work, { secrets: { hook: { env: 'HOOK_SECRET' } } });
      expect(chainflow(['history'], { cwd: work }).status).toBe(0); // creates the database
      const db = knexFactory({ client: 'sqlite3', connection: { filename: path.join(work, '.chainflow', 'chainflow.db') }, useNullAsDefault: true });
      await db.raw("CREATE TRIGGER refuse_runs BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END");
      await db.destroy();
      const events = aRun({ runId: 'storage-fail', at: T0, trigger: { kind: 'webhook', payload: { note: `x${'y'.repeat(2000)}`, key: secret } } });
      const file = path.join(work, 'events.ndjson');
      fs.writeFileSync(file, toNdjson(events));
      const res = chainflow(['journal', 'import', file], { cwd: work, env: { HOOK_SECRET: 'unrelated-hook-secret' } });
      expectOneLine(res, 1, /^Error: storage: insert into runs failed: a constraint was violated \(SQLITE_CONSTRAINT\)$/);
      expect(res.stderr).not.toContain(secret);
      expect(res.stderr).not.toMatch(/insert into .*values|refused by a trigger|yyyy/i);
    } finally {
      removeTempDir(work);
    }
  });
});
