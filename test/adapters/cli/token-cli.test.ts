/**
 * `chainflow token mint|list|revoke` through the real compiled program (SPEC: Authentication 5; CONTRACT
 * sections 5 and 6): the token is printed once, alone on the last line (or in `--json`), and never again.
 */
import { tokenHash } from '../../../src/domain/bearer-token';
import { assertBuilt, chainflow, hasStackTrace, lines, type CliResult } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TOKEN_LINE = /^cf_[A-Za-z0-9_-]{43}$/;

beforeAll(() => assertBuilt());

describe('chainflow token', () => {
  let dir: string;
  const run = (...args: string[]): CliResult => chainflow(args, { cwd: dir });
  const ok = (res: CliResult): string => {
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
    return res.stdout;
  };
  const tokens: string[] = [];

  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-token-');
    writeConfig(dir, {});
  });
  afterAll(() => removeTempDir(dir));

  it('mint NAME prints the token alone on the last line, starting with cf_', () => {
    const out = lines(ok(run('token', 'mint', 'ci')));
    const token = out[out.length - 1]!;
    expect(token).toMatch(TOKEN_LINE);
    tokens.push(token);
    // Printed once: no other line carries it.
    expect(out.slice(0, -1).join('\n')).not.toContain(token);
  });

  it('mint NAME --json prints exactly { name, token, created_at }', () => {
    const out = ok(run('token', 'mint', 'deploy.prod:1', '--json'));
    const minted = JSON.parse(out) as Record<string, string>;
    expect(Object.keys(minted).sort()).toEqual(['created_at', 'name', 'token']);
    expect(minted.name).toBe('deploy.prod:1');
    expect(minted.token).toMatch(TOKEN_LINE);
    expect(minted.created_at).toMatch(ISO);
    expect(tokens).not.toContain(minted.token);
    tokens.push(minted.token);
  });

  it('list never prints a token nor its hash (table and --json)', () => {
    const table = ok(run('token', 'list'));
    const json = ok(run('token', 'list', '--json'));
    for (const token of tokens) {
      for (const text of [table, json]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(tokenHash(token));
      }
    }
    expect(table).not.toMatch(/cf_[A-Za-z0-9_-]{10,}/);
    expect(lines(table)[0]).toMatch(/^NAME\s+CREATED\s+LAST USED\s+REVOKED/);
    const items = JSON.parse(json) as Array<Record<string, unknown>>;
    expect(items.map((b) => b.name)).toEqual(['ci', 'deploy.prod:1']);
    for (const b of items) {
      expect(Object.keys(b).sort()).toEqual(['created_at', 'last_used_at', 'name', 'revoked', 'revoked_at']);
      expect(b).toMatchObject({ revoked: false, revoked_at: null });
    }
  });

  it('revoke NAME, then list shows it revoked (and the other one live)', () => {
    expect(lines(ok(run('token', 'revoke', 'ci')))).toEqual(["revoked bearer 'ci'"]);
    const items = JSON.parse(ok(run('token', 'list', '--json'))) as Array<Record<string, unknown>>;
    expect(items.find((b) => b.name === 'ci')).toMatchObject({ revoked: true, revoked_at: expect.stringMatching(ISO) });
    expect(items.find((b) => b.name === 'deploy.prod:1')).toMatchObject({ revoked: false, revoked_at: null });
    const table = lines(ok(run('token', 'list')));
    const ciRow = table.find((l) => l.startsWith('ci '))!;
    expect(ciRow).toMatch(/\d{4}-\d{2}-\d{2}T[\d:.]+Z\s*$/);
  });

  it('revoking an unknown or an already revoked name exits non-zero with one line and no stack trace', () => {
    for (const name of ['nobody', 'ci']) {
      const res = run('token', 'revoke', name);
      expect(res.status).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(lines(res.stderr)).toHaveLength(1);
      expect(res.stderr).toContain(name);
      expect(hasStackTrace(res.stderr)).toBe(false);
    }
  });

  it('minting a name again (also a revoked one) exits non-zero with one line and prints no token', () => {
    for (const name of ['ci', 'deploy.prod:1']) {
      const res = run('token', 'mint', name);
      expect(res.status).not.toBe(0);
      expect(res.stdout).not.toMatch(/cf_/);
      expect(lines(res.stderr)).toHaveLength(1);
      expect(hasStackTrace(res.stderr)).toBe(false);
    }
  });

  it('a bad name exits 2 with one line naming the argument, for mint and revoke', () => {
    for (const args of [['token', 'mint', 'bad name'], ['token', 'mint', '-x'], ['token', 'revoke', 'bad/name'], ['token', 'mint', '.hidden']]) {
      const res = run(...args);
      expect({ args, status: res.status, stdout: res.stdout, stderrLines: lines(res.stderr).length })
        .toEqual({ args, status: 2, stdout: '', stderrLines: 1 });
      if (!args[2]!.startsWith('-')) expect(res.stderr).toMatch(/^Error: name: /);
      expect(hasStackTrace(res.stderr)).toBe(false);
    }
    const items = JSON.parse(ok(run('token', 'list', '--json'))) as Array<Record<string, unknown>>;
    expect(items.map((b) => b.name)).toEqual(['ci', 'deploy.prod:1']);
  });

  it('mint without a name exits 2', () => {
    const res = run('token', 'mint');
    expect(res.status).toBe(2);
    expect(lines(res.stderr)).toHaveLength(1);
  });
});
