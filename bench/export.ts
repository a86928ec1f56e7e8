/**
 * The audit export of every run, timed in a child process (`chainflow history export --out FILE`) so that its
 * peak RSS is the export's alone: wall time from the parent (node start included), peak RSS from GNU time.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { nowMs } from './timing';

const GNU_TIME = '/usr/bin/time';
/** A JSON export of 1M runs reads every run five times (once a section) and the step events of every run. */
const TIMEOUT_MS = 30 * 60_000;

export interface ExportFigures {
  readonly format: 'csv' | 'json';
  /** Runs the command says it exported. */
  readonly runs: number;
  readonly seconds: number;
  readonly runsPerSec: number;
  /** NaN when GNU time is not there. */
  readonly peakRssMb: number;
  /** CPU seconds of the process (user + system, every thread; NaN without GNU time): steadier than wall time on a shared machine. */
  readonly cpuSeconds: number;
  readonly bytes: number;
  /** The command's summary line. */
  readonly summary: string;
}

interface Exit { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Runs a command to its end; SIGINT / SIGTERM meanwhile stop it and then the benchmark (after `cleanup`). */
function run(cmd: string, args: readonly string[], cwd: string, cleanup: () => void): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => void (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => void (stderr = (stderr + d).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGTERM'), TIMEOUT_MS);
    const onSignal = (signal: NodeJS.Signals): void => {
      child.kill(signal);
      child.once('close', () => {
        cleanup();
        process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
      });
    };
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    const done = (): void => {
      clearTimeout(timer);
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    };
    child.once('error', (err) => { done(); reject(err); });
    child.once('close', (status, signal) => { done(); resolve({ status, signal, stdout, stderr }); });
  });
}

/** Runs the export to `.bench/export.<format>`, measures it, then deletes the file (it is large). */
export async function measureExport(format: 'csv' | 'json', repo: string, work: string, configPath: string, log: (msg: string) => void): Promise<ExportFigures> {
  const out = join(work, `export.${format}`);
  const timeFile = join(work, 'export.time');
  const node = [join(repo, 'bin', 'run.js'), 'history', 'export', '--format', format, '--out', out, '--config', configPath];
  const timed = existsSync(GNU_TIME);
  const cleanup = (): void => {
    rmSync(out, { force: true });
    rmSync(timeFile, { force: true });
  };
  cleanup();
  try {
    log(`export ${format}: ${timed ? `${GNU_TIME} -f '%M %U %S' ` : ''}node ${node.join(' ')}`);
    const t = nowMs();
    const res = timed
      ? await run(GNU_TIME, ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...node], repo, cleanup)
      : await run(process.execPath, node, repo, cleanup);
    const seconds = (nowMs() - t) / 1000;
    if (res.status !== 0) throw new Error(`history export --format ${format} exited ${res.status ?? res.signal}: ${(res.stderr || res.stdout || '').slice(0, 500)}`);
    const summary = res.stdout.trim().split('\n').pop() ?? '';
    const runs = Number(/exported (\d+) runs/.exec(summary)?.[1] ?? NaN);
    // GNU time writes "Command exited with non-zero status N" before the figure when the command fails.
    const [kb, user, sys] = timed ? readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) : [NaN, NaN, NaN];
    const bytes = existsSync(out) ? statSync(out).size : 0;
    return { format, runs, seconds, runsPerSec: runs / seconds, peakRssMb: kb! / 1024, cpuSeconds: user! + sys!, bytes, summary };
  } finally {
    cleanup();
  }
}
