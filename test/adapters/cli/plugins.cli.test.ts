/**
 * The oclif CLI with plugins (design card; issue #13, item 9): @oclif/plugin-plugins installs, links and removes a
 * plugin that adds a command, @oclif/plugin-help answers `help`, @oclif/plugin-autocomplete writes completions.
 * The plugin is an ES module, loaded with a dynamic import: the command runs twice, the second time with the
 * launcher's V8 code cache (the case that failed with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING on Node 20).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, chainflow, hasStackTrace, lines, REPO_ROOT, type CliResult } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

const PLUGIN = path.join(REPO_ROOT, 'test', 'fixtures', 'plugin-hello');
const CACHE = path.join(REPO_ROOT, 'dist', 'chainflow.js.cache');

beforeAll(() => assertBuilt());

describe('plugins', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = makeTempDir('chainflow-plugins-');
    // Where oclif keeps user plugins and caches: a temp folder, never the real home.
    env = {
      CHAINFLOW_DATA_DIR: path.join(dir, 'data'), CHAINFLOW_CACHE_DIR: path.join(dir, 'cache'), CHAINFLOW_CONFIG_DIR: path.join(dir, 'config'),
      OCLIF_DISABLE_LINKED_ESM_WARNING: '1',
    };
  });
  afterAll(() => removeTempDir(dir));

  const run = (...args: string[]): CliResult => chainflow(args, { cwd: dir, env });
  const ok = (res: CliResult): CliResult => {
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(res.stderr).not.toMatch(/ERR_VM|Error:/);
    return res;
  };

  it('links a local plugin; its command runs, also from the code cache; unlink removes it', () => {
    ok(run('plugins', 'link', PLUGIN, '--no-install'));
    expect(lines(ok(run('hello')).stdout)).toEqual(['hello from a plugin']);
    expect(fs.existsSync(CACHE)).toBe(true);
    expect(lines(ok(run('hello')).stdout)).toEqual(['hello from a plugin']);
    expect(ok(run('plugins')).stdout).toMatch(/chainflow-plugin-hello 1\.0\.0 \(link\)/);
    expect(ok(run('--help')).stdout).toMatch(/^\s+hello\s+Say hello \(a test plugin\)$/m);
    ok(run('plugins', 'unlink', 'chainflow-plugin-hello'));
    const gone = run('hello');
    expect({ status: gone.status, stderr: lines(gone.stderr) }).toEqual({ status: 2, stderr: ["Error: command 'hello' not found (see chainflow --help)"] });
  });

  it('installs a plugin from a package file, runs its command, uninstalls it', () => {
    const packed = execFileSync('npm', ['pack', PLUGIN, '--pack-destination', dir, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()!;
    ok(run('plugins', 'install', `file:${path.join(dir, packed)}`));
    expect(lines(ok(run('hello')).stdout)).toEqual(['hello from a plugin']);
    expect(ok(run('plugins')).stdout).toMatch(/chainflow-plugin-hello 1\.0\.0/);
    ok(run('plugins', 'uninstall', 'chainflow-plugin-hello'));
    expect(run('hello').status).toBe(2);
  });

  it('help answers for our commands (plugin-help)', () => {
    const res = ok(run('help', 'history', 'txs'));
    expect(res.stdout).toMatch(/^USAGE\n\s+\$ chainflow history txs/m);
    expect(hasStackTrace(res.stdout)).toBe(false);
  });

  it('autocomplete writes bash and zsh completions listing the commands (plugin-autocomplete)', () => {
    ok(run('autocomplete', '--refresh-cache'));
    const bash = fs.readFileSync(path.join(dir, 'cache', 'autocomplete', 'functions', 'bash', 'chainflow.bash'), 'utf8');
    const zsh = fs.readFileSync(path.join(dir, 'cache', 'autocomplete', 'functions', 'zsh', '_chainflow'), 'utf8');
    for (const id of ['history', 'runs', 'spend', 'journal', 'token', 'start']) {
      expect(bash).toContain(id);
      expect(zsh).toContain(id);
    }
    expect(bash).toContain('history:txs');
    expect(ok(run('autocomplete', 'script', 'bash')).stdout).toContain('CHAINFLOW_AC_BASH_SETUP_PATH');
  });
});
