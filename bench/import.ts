/**
 * `npm run bench -- --import` (perf-write, issue #14): the journal import's rate, alone and while an engine process
 * appends to the same SQLite file. Each measure builds a fresh `.bench/import-*.db` through the import use case,
 * as the full bench builds its journal (chunks of NDJSON files, each one `journal import FILE`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openRoot, type Root } from '../src/bin/root';
import type { JournalShape } from './generate';
import type { BuildFigures } from './report';

/** Target of issue #14 at 1M runs. */
export const IMPORT_TARGET_EVENTS_PER_SEC = 50_000;
/** "The import rate holds while the engine appends": at least this share of the rate alone, in the same run. */
export const IMPORT_HOLDS_RATIO = 0.8;

type Built = Omit<BuildFigures, 'dbMb' | 'walMb' | 'peakRssMb' | 'reused'>;

export interface EngineLoad {
  readonly runs: number;
  readonly failures: number;
  /** Each distinct failure's message, with its count. */
  readonly errors: readonly string[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface ImportFigures {
  readonly env: string;
  readonly alone: Built;
  /**
   * The side-by-side pair: the same number of runs imported alone and with the engine appending, in alternation
   * (PAIR_ROUNDS of each); the best of each side, the one the machine's other work disturbed least.
   */
  readonly pairAlone: Built;
  readonly pairWithEngine: Built;
  readonly engine: EngineLoad;
  readonly rounds: number;
}

interface Options {
  readonly work: string;
  readonly repo: string;
  readonly runs: number;
  readonly log: (msg: string) => void;
  readonly build: (root: Root, shape: JournalShape) => Promise<Built>;
}

/** A fresh database `name` under `dir`, opened as the bench opens its journal. */
async function freshRoot(dir: string, name: string): Promise<Root> {
  mkdirSync(dir, { recursive: true });
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(join(dir, name + suffix), { force: true });
  const configPath = join(dir, `${name}.yaml`);
  writeFileSync(configPath, `chainflow_version: 1\nstorage:\n  url: sqlite:${name}\n`);
  return openRoot({ cwd: dir, configPath, profile: 'server' });
}

async function importAlone(options: Options, runs: number, name: string): Promise<Built> {
  const root = await freshRoot(options.work, name);
  try {
    options.log(`import: ${runs.toLocaleString('en-US')} runs into ${name}, alone`);
    return await options.build(root, { runs, end: Math.floor(Date.now() / 1000) * 1000 });
  } finally {
    await root.close();
  }
}

/** The same import while `dist/bench/engine-load.js` (another process) runs workflows on the same file. */
async function importWithEngine(options: Options, runs: number, name: string): Promise<{ built: Built; engine: EngineLoad }> {
  const root = await freshRoot(options.work, name);
  const child = spawn(process.execPath, [join(options.repo, 'dist', 'bench', 'engine-load.js'), options.work, name], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const next = (): Promise<string> => new Promise((resolve, reject) => {
    const onLine = (line: string): void => { cleanup(); resolve(line); };
    const onExit = (code: number | null): void => { cleanup(); reject(new Error(`the engine process exited (${code})`)); };
    const cleanup = (): void => { lines.off('line', onLine); child.off('exit', onExit); };
    lines.once('line', onLine);
    child.once('exit', onExit);
  });
  try {
    if ((await next()) !== 'ready') throw new Error('the engine process did not start');
    options.log(`import: ${runs.toLocaleString('en-US')} runs into ${name}, while an engine process appends`);
    const built = await options.build(root, { runs, end: Math.floor(Date.now() / 1000) * 1000 });
    const result = next();
    child.kill('SIGTERM');
    const engine = JSON.parse(await result) as EngineLoad;
    await once(child, 'exit');
    options.log(`import with engine: engine ran ${engine.runs} runs (p50 ${engine.p50Ms.toFixed(1)} ms, max ${engine.maxMs.toFixed(0)} ms, ${engine.failures} failed)`);
    return { built, engine };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await root.close();
  }
}

/** Rounds of the side-by-side pair: this machine's other work moves a single figure by half or more. */
const PAIR_ROUNDS = 2;

export async function benchImport(options: Options): Promise<ImportFigures> {
  const loadAtStart = loadavg()[0]!;
  const pairRuns = Math.min(options.runs, Number(process.env.BENCH_IMPORT_ENGINE_RUNS ?? 100_000));
  const alone = await importAlone(options, options.runs, `import-${options.runs}.db`);
  let pairAlone: Built | undefined;
  let best: { built: Built; engine: EngineLoad } | undefined;
  const errors: string[] = [];
  let failures = 0;
  for (let round = 0; round < PAIR_ROUNDS; round++) {
    const a = pairRuns === options.runs && round === 0 ? alone : await importAlone(options, pairRuns, `import-${pairRuns}.db`);
    if (!pairAlone || a.eventsPerSec > pairAlone.eventsPerSec) pairAlone = a;
    const e = await importWithEngine(options, pairRuns, `import-engine-${pairRuns}.db`);
    if (!best || e.built.eventsPerSec > best.built.eventsPerSec) best = e;
    // The engine's failures of every round count, not only the best round's.
    failures += e.engine.failures;
    errors.push(...e.engine.errors);
  }
  const pairWithEngine = best!.built;
  const engine: EngineLoad = { ...best!.engine, failures, errors };
  const env = `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(2)} at start / ${loadavg()[0]!.toFixed(2)} at end (other processes share the machine)`;
  return { env, alone, pairAlone: pairAlone!, pairWithEngine, engine, rounds: PAIR_ROUNDS };
}

export function renderImport(f: ImportFigures): { text: string; pass: boolean } {
  const rate = (b: Built): string => Math.round(b.eventsPerSec).toLocaleString('en-US');
  const rateOk = f.alone.runs < 1_000_000 || f.alone.eventsPerSec >= IMPORT_TARGET_EVENTS_PER_SEC;
  const ratio = f.pairWithEngine.eventsPerSec / f.pairAlone.eventsPerSec;
  const holds = ratio >= IMPORT_HOLDS_RATIO && f.engine.failures === 0;
  const text = [
    `## Journal import (${f.alone.runs.toLocaleString('en-US')} runs)`, '', f.env, '',
    `- Import alone: ${f.alone.events.toLocaleString('en-US')} events in ${f.alone.seconds.toFixed(1)} s: **${rate(f.alone)} events/s** — ` +
      `target ≥ ${IMPORT_TARGET_EVENTS_PER_SEC.toLocaleString('en-US')} at 1M runs: ${f.alone.runs < 1_000_000 ? 'not judged below 1M runs' : rateOk ? 'met' : '**missed**'}`,
    `- Side by side, ${f.pairAlone.runs.toLocaleString('en-US')} runs, best of ${f.rounds} alternating rounds each: alone **${rate(f.pairAlone)} events/s**, while an engine process appends ` +
      `**${rate(f.pairWithEngine)} events/s** (${(ratio * 100).toFixed(0)}%) — target ≥ ${IMPORT_HOLDS_RATIO * 100}% and no engine failure: ${holds ? 'met' : '**missed**'}`,
    `- The engine meanwhile: ${f.engine.runs.toLocaleString('en-US')} three-step runs, run time p50 ${f.engine.p50Ms.toFixed(1)} ms, ` +
      `p99 ${f.engine.p99Ms.toFixed(0)} ms, max ${f.engine.maxMs.toFixed(0)} ms (best round); ${f.engine.failures} failed in all rounds${f.engine.errors.length ? `: ${f.engine.errors.join('; ')}` : ''}`, '',
  ].join('\n');
  return { text, pass: rateOk && holds };
}
