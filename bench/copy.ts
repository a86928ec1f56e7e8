/**
 * `npm run bench -- --copy` (issue #29, part 6): `chainflow storage copy` of a SQLite bench journal into an empty
 * database of a throwaway PostgreSQL 15 cluster started for the measure (as the tests start theirs,
 * test/support/postgres.ts), timed end to end as a user runs it: the built CLI in a child process. The journal is
 * `.bench/journal-<BENCH_RUNS>.db` (built first when missing), or BENCH_COPY_FROM=PATH; it is opened read-only.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { startPostgresCluster } from '../test/support/postgres';

export interface CopyFigures {
  readonly journal: string;
  readonly journalMb: number;
  readonly rows: number;
  readonly tables: number;
  readonly seconds: number;
  readonly verified: boolean;
  /** The largest tables: name and rows. */
  readonly largest: ReadonlyArray<readonly [string, number]>;
  readonly peakRssMb?: number;
  readonly env: string;
  readonly exitCode: number | null;
  readonly stderr: string;
}

/** Copies `journal` into a fresh database of a cluster of its own, and stops the cluster. */
export async function benchCopy(options: { repo: string; journal: string; log: (msg: string) => void }): Promise<CopyFigures> {
  const { repo, journal, log } = options;
  if (!existsSync(journal)) throw new Error(`${journal} not found`);
  const loadAtStart = loadavg()[0]!;
  const cluster = await startPostgresCluster();
  try {
    const admin = knexFactory({ client: 'pg', connection: cluster.url, pool: { min: 0, max: 1 } });
    await admin.raw('CREATE DATABASE chainflow_copy');
    await admin.destroy();
    const to = new URL(cluster.url);
    to.pathname = '/chainflow_copy';
    log(`copying ${journal} (${(statSync(journal).size / 1048576).toFixed(0)} MB) into ${to.host}/chainflow_copy`);
    // GNU time reports the child's peak RSS; without it the figure is left out.
    const timed = existsSync('/usr/bin/time');
    const args = [join(repo, 'bin', 'run.js'), 'storage', 'copy', '--from', `sqlite:${journal}`, '--to', to.toString()];
    const started = performance.now();
    const child = timed
      ? spawn('/usr/bin/time', ['-f', 'peak-rss-kb %M', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString()));
    const [exitCode] = (await once(child, 'exit')) as [number | null];
    const seconds = (performance.now() - started) / 1000;
    const rowsOf = [...stdout.matchAll(/^(\w+)\s+(\d+)\s+(\d+)\s/gm)].map((m) => [m[1]!, Number(m[2])] as const);
    const rss = /peak-rss-kb (\d+)/.exec(stderr);
    return {
      journal,
      journalMb: statSync(journal).size / 1048576,
      rows: rowsOf.reduce((s, [, n]) => s + n, 0),
      tables: rowsOf.length,
      seconds,
      verified: exitCode === 0 && /^verified: /m.test(stdout),
      largest: [...rowsOf].sort((a, b) => b[1] - a[1]).slice(0, 5),
      ...(rss ? { peakRssMb: Number(rss[1]) / 1024 } : {}),
      env: `node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(2)} at start / ${loadavg()[0]!.toFixed(2)} at end `
        + '(PostgreSQL 15 on the same machine, fsync off as in the tests; other processes share it)',
      exitCode,
      stderr: stderr.replace(/peak-rss-kb \d+\n?/, '').trim(),
    };
  } finally {
    cluster.stop();
  }
}

export function renderCopy(f: CopyFigures): { text: string; pass: boolean } {
  const rate = f.seconds > 0 ? Math.round(f.rows / f.seconds) : 0;
  const lines = [
    `# chainflow bench: storage copy, SQLite to PostgreSQL`,
    '',
    `- journal: ${f.journal} (${f.journalMb.toFixed(0)} MB), opened read-only`,
    `- copied ${f.rows.toLocaleString('en-US')} rows of ${f.tables} tables in ${f.seconds.toFixed(1)} s end to end (the CLI's start, migrations, copy `
      + `and verification): **${rate.toLocaleString('en-US')} rows/s**${f.peakRssMb !== undefined ? `, peak RSS ${f.peakRssMb.toFixed(0)} MB` : ''}`,
    `- largest tables: ${f.largest.map(([t, n]) => `${t} ${n.toLocaleString('en-US')}`).join(', ')}`,
    `- verified by counts and wei sums: ${f.verified ? 'yes' : `**no** (exit ${f.exitCode}: ${f.stderr.split('\n').slice(-3).join(' / ')})`}`,
    '',
    f.env,
    '',
  ];
  return { text: lines.join('\n'), pass: f.verified };
}
