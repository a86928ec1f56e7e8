/**
 * Test support: runs the real compiled program (`node bin/run.js`, which loads dist/) in a working folder.
 * `npm test` builds first; run `npm run build` before running these tests alone.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const BIN = path.join(REPO_ROOT, 'bin', 'run.js');
/** The compiled file bin/run.js loads: the bundle when it names one, else tsc's output. */
function compiledEntry(): string {
  const launcher = fs.readFileSync(BIN, 'utf8');
  return launcher.includes("'chainflow.js'") || launcher.includes('dist/chainflow.js')
    ? path.join(REPO_ROOT, 'dist', 'chainflow.js')
    : path.join(REPO_ROOT, 'dist', 'src', 'bin', 'cli.js');
}

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** Working folder (config file and default SQLite location). */
  readonly cwd: string;
  /** Standard input. */
  readonly input?: string;
  /** Extra environment; CHAINFLOW_CONFIG is always removed from the inherited one first. */
  readonly env?: Record<string, string>;
}

/** Throws a clear message when dist/ is missing (the program runs the compiled code). */
export function assertBuilt(): void {
  const entry = compiledEntry();
  if (!fs.existsSync(entry)) {
    throw new Error(`${entry} is missing: run \`npm run build\` first (npm test does)`);
  }
}

/** Runs `chainflow ...args` to completion. */
export function chainflow(args: readonly string[], options: CliOptions): CliResult {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(options.env ?? {}) };
  delete env.CHAINFLOW_CONFIG;
  if (options.env?.CHAINFLOW_CONFIG) env.CHAINFLOW_CONFIG = options.env.CHAINFLOW_CONFIG;
  env.NO_COLOR = '1';
  const res = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env,
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (res.error) throw res.error;
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** Non-empty lines of a text. */
export function lines(text: string): string[] {
  return text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
}

/** True when a text looks like it carries a stack trace. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at\s.+\(?.*:\d+:\d+\)?$/m.test(text) || /node:internal|\.js:\d+:\d+/.test(text);
}
