/**
 * The README's commands work as written (issue #13): every `npx chainflow …` and `curl …` line of its shell
 * blocks runs, in order, in a fresh folder holding what a fresh clone holds (docs/examples), against the real
 * program and a real `chainflow start` for the curl lines. Only the program's path and the server's port differ.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, BIN, hasStackTrace, REPO_ROOT } from '../support/cli';
import { startProcessServer, type ProcessServer } from '../support/process';
import { makeTempDir, removeTempDir } from '../support/server';

/** The command lines of the README's `sh` blocks that use the program or the API, comments removed. */
function readmeCommands(): string[] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((b) => b.split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => /^(npx chainflow|curl) /.test(line));
}

describe('README', () => {
  let dir: string;
  let server: ProcessServer | undefined;
  beforeAll(() => {
    assertBuilt();
    dir = makeTempDir('chainflow-readme-');
    fs.cpSync(path.join(REPO_ROOT, 'docs', 'examples'), path.join(dir, 'docs', 'examples'), { recursive: true });
  });
  afterAll(async () => {
    await server?.kill();
    removeTempDir(dir);
  });

  it('lists the commands it documents', () => {
    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThan(20);
    expect(commands.some((c) => c.startsWith('curl'))).toBe(true);
  });

  it('every npx chainflow and curl line works as written', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env, NO_COLOR: '1',
      CHAINFLOW_DATA_DIR: path.join(dir, '.oclif', 'data'), CHAINFLOW_CACHE_DIR: path.join(dir, '.oclif', 'cache'),
      CHAINFLOW_CONFIG_DIR: path.join(dir, '.oclif', 'config'),
    };
    delete env.CHAINFLOW_CONFIG;
    delete env.NODE_ENV; // as in a user's shell (jest sets it to 'test', which turns on oclif's developer warnings)
    for (const command of readmeCommands()) {
      if (command.startsWith('curl') && !server) server = await startProcessServer(dir, {}, ['--no-engine']);
      const line = command
        .replace(/npx chainflow /g, `'${process.execPath}' '${BIN}' `)
        .replace(/^curl /, 'curl -sS --fail ')
        .replace(/http:\/\/127\.0\.0\.1:8080/g, server?.baseUrl ?? 'http://127.0.0.1:8080');
      const res = spawnSync('bash', ['-c', line], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
      // stderr may carry progress words (`Building the autocomplete cache... done`), never an error or a warning.
      expect({ command, status: res.status, stderr: res.stderr }).toEqual({ command, status: 0, stderr: expect.not.stringMatching(/error|warn/i) });
      expect(hasStackTrace(res.stdout)).toBe(false);
    }
    // What the commands wrote is there.
    for (const file of ['payouts.csv', 'archive.json', 'spend.csv']) expect(fs.statSync(path.join(dir, file)).size).toBeGreaterThan(0);
  }, 300_000);
});

describe('documentation links', () => {
  it('every relative link of README.md and docs/*.md names a file inside the repository that exists', () => {
    const files = ['README.md', ...fs.readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue; // http:, https:, mailto:
        const resolved = path.resolve(REPO_ROOT, path.dirname(file), target!);
        if (!resolved.startsWith(`${REPO_ROOT}${path.sep}`) || !fs.existsSync(resolved)) broken.push(`${file}: ${target}`);
      }
      // A path outside the repository written as code (`../shared/…`) is a link a reader cannot follow either.
      for (const [outside] of text.matchAll(/`\.\.\/[^`]+`/g)) broken.push(`${file}: ${outside}`);
    }
    expect(broken).toEqual([]);
  });
});
