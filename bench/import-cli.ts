/**
 * `npm run bench -- --import-cli` (issue #29): `chainflow journal import FILE` as a user times it, end to end: the
 * wall clock of the built CLI (bin/run.js) from spawn to exit (node start, config load, migrations of the empty
 * database, validation, parse, writes, exit) for a 100k-run NDJSON journal (BENCH_IMPORT_CLI_RUNS), each round on a
 * fresh empty SQLite file. The file is generated once under .bench/ (untimed) and kept for the next bench.
 * BENCH_IMPORT_CLI_B=<path of another checkout's bin/run.js> alternates that build with this one, round by round, for
 * an A/B comparison under the same load (other processes share the machine).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { writeJournal } from './generate';
import { nowMs, stats } from './timing';

/** Issue #29: the import of a 100k-run file through the CLI on an empty SQLite database, at least this rate (p50). */
export const IMPORT_CLI_TARGET_EVENTS_PER_SEC = 50_000;
/** A fixed end time: the file is the same whenever it is generated, and it is generated only once. */
const END = Date.UTC(2026, 0, 1);

interface Options {
  readonly work: string;
  readonly repo: string;
  readonly runs: number;
  readonly rounds: number;
  /** Another build's bin/run.js, alternated with this one's (A/B). */
  readonly other?: string;
  readonly log: (msg: string) => void;
}

export interface CliImportSide {
  readonly label: string;
  readonly events: number;
  /** Events/s of each round, in order. */
  readonly rates: readonly number[];
  readonly seconds: readonly number[];
  /** CPU seconds (user + system) of the CLI process in each round. */
  readonly cpuSeconds: readonly number[];
}

export interface CliImportFigures {
  readonly env: string;
  readonly runs: number;
  readonly fileMb: number;
  readonly sides: readonly CliImportSide[];
}

/** The 100k-run journal file, generated when missing (never timed). */
async function journalFile(options: Options): Promise<string> {
  const path = join(options.work, `import-cli-${options.runs}.ndjson`);
  if (!existsSync(path)) {
    options.log(`import-cli: generating ${path}`);
    await writeJournal(`${path}.tmp`, { runs: options.runs, end: END }, 0, options.runs);
    renameSync(`${path}.tmp`, path);
  }
  return path;
}

/** One timed `chainflow journal import FILE` on a fresh, empty database: its events and seconds. */
async function importOnce(runJs: string, dir: string, file: string): Promise<{ events: number; seconds: number; cpuSeconds: number }> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'chainflow.yaml');
  writeFileSync(config, 'chainflow_version: 1\nstorage:\n  url: sqlite:import.db\n');
  const t0 = nowMs();
  // Through sh, whose `times` then prints the CPU time of its child (the CLI): a figure the machine's other work
  // disturbs far less than the wall clock, for A/B comparisons. sh itself adds about a millisecond.
  const script = '"$@"; s=$?; times >&2; exit $s';
  const child = spawn('sh', ['-c', script, 'sh', process.execPath, runJs, 'journal', 'import', file, '--config', config], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const seconds = (nowMs() - t0) / 1000;
  if (code !== 0) throw new Error(`chainflow journal import exited ${code}: ${(stderr || stdout).slice(0, 500)}`);
  const m = /imported (\d+) events \((\d+) already present\)/.exec(stdout);
  if (!m) throw new Error(`chainflow journal import printed no count: ${stdout.slice(0, 300)}`);
  if (Number(m[2]) !== 0) throw new Error(`an empty database reported ${m[2]} duplicates`);
  rmSync(dir, { recursive: true, force: true });
  // `times`: the shell's own user and system time, then its children's (the last line).
  const t = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(stderr);
  const cpuSeconds = t ? Number(t[1]) * 60 + Number(t[2]) + Number(t[3]) * 60 + Number(t[4]) : NaN;
  return { events: Number(m[1]), seconds, cpuSeconds };
}

export async function benchImportCli(options: Options): Promise<CliImportFigures> {
  mkdirSync(options.work, { recursive: true });
  const file = await journalFile(options);
  const loadAtStart = loadavg()[0]!;
  const builds = [{ label: 'this build', runJs: join(options.repo, 'bin', 'run.js') }];
  if (options.other) builds.push({ label: options.other, runJs: options.other });
  const sides = builds.map((b) => ({ label: b.label, events: 0, rates: [] as number[], seconds: [] as number[], cpuSeconds: [] as number[] }));
  // One untimed round of each build first: the OS file cache holds the file and the program for every timed one.
  for (const b of builds) await importOnce(b.runJs, join(options.work, 'import-cli'), file);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < builds.length; k++) {
      // Alternating which goes first, so neither side always follows the other.
      const i = (k + round) % builds.length;
      const { events, seconds, cpuSeconds } = await importOnce(builds[i]!.runJs, join(options.work, 'import-cli'), file);
      const side = sides[i]!;
      side.events = events;
      side.rates.push(events / seconds);
      side.seconds.push(seconds);
      side.cpuSeconds.push(cpuSeconds);
      options.log(`import-cli: round ${round + 1}/${options.rounds}, ${builds[i]!.label}: ${events} events in ${seconds.toFixed(2)} s (${cpuSeconds.toFixed(2)} s of CPU), ${Math.round(events / seconds)} events/s`);
    }
  }
  const { size } = statSync(file);
  const env = `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(2)} at start / ${loadavg()[0]!.toFixed(2)} at end (other processes share the machine)`;
  return { env, runs: options.runs, fileMb: size / 1048576, sides };
}

export function renderImportCli(f: CliImportFigures): { text: string; pass: boolean } {
  const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
  const p50 = (s: CliImportSide): number => stats(s.rates).p50;
  const pass = p50(f.sides[0]!) >= IMPORT_CLI_TARGET_EVENTS_PER_SEC;
  const rows = f.sides.map((s) => {
    const r = stats(s.rates);
    const min = Math.min(...s.rates);
    const cpu = stats(s.cpuSeconds).p50;
    return `| ${s.label} | ${fmt(s.events)} | **${fmt(r.p50)}** | ${fmt(min)} – ${fmt(r.max)} | ${s.seconds.map((x) => x.toFixed(2)).join(' ')} | ${cpu.toFixed(1)} (${fmt(s.events / cpu)} events per CPU second) |`;
  });
  const text = [
    `## \`chainflow journal import FILE\` end to end (${f.runs.toLocaleString('en-US')} runs, ${f.fileMb.toFixed(0)} MB, empty SQLite database)`, '', f.env, '',
    '| build | events | events/s p50 | spread (min – max) | wall seconds per round | CPU seconds p50 |', '|---|---:|---:|---|---|---:|', ...rows, '',
    `- Target (issue #29) ≥ ${fmt(IMPORT_CLI_TARGET_EVENTS_PER_SEC)} events/s p50 of this build: ${pass ? 'met' : '**missed**'}`, '',
  ].join('\n');
  return { text, pass };
}
