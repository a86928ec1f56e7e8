/**
 * `npm run bench -- --read`: the read side of issue #14. Both journals (small and large) served at once, each by a
 * server of its own: every history list page (runs, txs, approvals, waiting, replays, reorgs; first and deep;
 * unfiltered and per filter) and the workflows overview over HTTP, each timed in alternation with `GET /live` on the
 * same server (one request of each in turn, on one keep-alive connection), so that both see the same load of the
 * shared machine, in blocks that alternate between the journals (see pairedAcross), by a client in a process of its
 * own (judged: paired-client.ts) and by one in this process; then, on the large journal, 50
 * concurrent clients (autocannon) on a filtered runs page beside the same on `/live`, alone and while another
 * process appends to the journal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import pino from 'pino';
import { KnexHistoryRepository } from '../src/adapters/knex/knex-history.repository';
import { Database } from '../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../src/adapters/knex/knex-run.repository';
import { openRoot } from '../src/bin/root';
import { startServer } from '../src/bin/server';
import { CursorCodec } from '../src/domain/cursor';
import { PAGE_LIMIT, defineCases, prepareCase } from './cases';
import { PICKS } from './generate';
import { defineListCases, prepareListCase } from './lists';
import { ClientProcess } from './paired-client';
import { HttpClient, fmt, nowMs, stats, type Stats } from './timing';

/** What the bench reads of autocannon's JSON result. */
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

export const READ_TARGETS = { pageToLive: 3, largeToSmall: 1.3, workflowsToLive: 3, concurrentShareOfLive: 0.2, concurrentP99Ms: 50 } as const;
const CLIENTS = 50;
const CANNON_SECONDS = 10;

export interface ReadOptions {
  readonly work: string;
  readonly repo: string;
  readonly journals: ReadonlyArray<{ runs: number; configPath: string; label?: string; databaseCpuMs?: () => number }>;
  /**
   * What the journals are: sizes of one store (`size`: the last is judged, and against the first), or one journal in
   * two stores (`store`, `--postgres`: SQLite then PostgreSQL, the last judged, the first shown beside it).
   */
  readonly compare?: 'size' | 'store';
  readonly iterations: number;
  readonly warmup: number;
  readonly log: (msg: string) => void;
}

/** `rows`: the items the page answered (a list page; undefined for the overview). */
/**
 * `cpu`: CPU milliseconds per request, of this process (server and client) for the page and for /live, and of the
 * database's server processes for the page (PostgreSQL's, when the bench knows them): on a machine shared with
 * other work, the steadier figure of what a page costs (waiting for a core is not in it).
 */
interface Cpu { page: number; live: number; database: number; n: number }
/** A page's and /live's times taken in turn by one client. */
interface Timed { readonly page: Stats; readonly live: Stats }
/**
 * `page` and `live` by the client in the bench's process (with `cpu`); `apart` by the client in a process of its own
 * (paired-client.ts), which the targets are judged on: a user's client is another process.
 */
interface Paired extends Timed { readonly rows?: number; readonly cpu?: Cpu; readonly apart: Timed }
interface PageFigures { readonly key: string; readonly first: Paired; readonly deep?: Paired }
interface JournalFigures { readonly runs: number; readonly label: string; readonly pages: PageFigures[]; readonly workflows?: Paired }
interface CannonFigures { readonly label: string; readonly path: string; readonly page: CannonResult; readonly live: CannonResult; readonly writerRuns?: number }

type Query = Record<string, string>;
type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows);
const withPage = (q: Query, cursor?: string): Query => ({ ...q, limit: String(PAGE_LIMIT), ...(cursor ? { cursor } : {}) });
const pathOf = (list: string, q: Query): string => `/api/history/${list}?${new URLSearchParams(q).toString()}`;

/** Blocks a page's samples are taken in on each journal, the journals taking turns (see measurePages). */
const BLOCKS = 4;
/** Untimed rounds at the start of every block but the first (which has the full warm-up): the server changes. */
const BLOCK_WARMUP = 5;

/** A page to time on one journal's server. */
interface Target { readonly http: HttpClient; readonly port: number; readonly path: string; readonly databaseCpuMs?: () => number }

/** One request of the target's path, one of /live, in turn, `n` times: the times are added to `into`. */
async function pairedRounds(target: Target, n: number, into: { page: number[]; live: number[]; cpu?: Cpu }): Promise<void> {
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const db0 = target.databaseCpuMs?.() ?? 0;
  for (let k = 0; k < n; k++) {
    let c = cpuMs();
    let t = nowMs();
    await target.http.getOk(target.path);
    into.page.push(nowMs() - t);
    if (into.cpu) into.cpu.page += cpuMs() - c;
    c = cpuMs();
    t = nowMs();
    await target.http.getOk('/live');
    into.live.push(nowMs() - t);
    if (into.cpu) into.cpu.live += cpuMs() - c;
  }
  if (into.cpu) {
    into.cpu.database += (target.databaseCpuMs?.() ?? 0) - db0;
    into.cpu.n += n;
  }
}

/**
 * The same page on every journal (undefined where a journal has no such page), each timed in turn with /live on its
 * own server, `iterations` times after `warmup` rounds, by both clients (the one in this process, then the one
 * apart, in the other order every other block); the samples are taken in BLOCKS blocks per journal, the journals
 * taking turns (small, large, then large, small, …), so that a slow spell of the shared machine falls on every
 * journal's figure of the page and on both clients' rather than on one, and the ratio of a page to the same page at
 * 100k compares samples taken side by side in time.
 */
async function pairedAcross(targets: ReadonlyArray<Target | undefined>, iterations: number, warmup: number, apart: ClientProcess): Promise<Array<Paired | undefined>> {
  const samples = targets.map(() => ({ page: [] as number[], live: [] as number[], cpu: { page: 0, live: 0, database: 0, n: 0 } as Cpu, apart: { page: [] as number[], live: [] as number[] } }));
  const rows: Array<number | undefined> = [];
  for (const target of targets) {
    if (!target) continue;
    for (let k = 0; k < warmup; k++) {
      await target.http.getOk(target.path);
      await target.http.getOk('/live');
    }
    await apart.rounds(target.port, target.path, warmup);
    const body = JSON.parse(await target.http.getOk(target.path)) as { items?: unknown[] };
    rows[targets.indexOf(target)] = Array.isArray(body.items) ? body.items.length : undefined;
  }
  for (let b = 0; b < BLOCKS; b++) {
    const n = Math.floor((iterations * (b + 1)) / BLOCKS) - Math.floor((iterations * b) / BLOCKS);
    for (let t = 0; t < targets.length; t++) {
      const i = b % 2 === 0 ? t : targets.length - 1 - t;
      const target = targets[i];
      if (!target) continue;
      const here = async (): Promise<void> => {
        if (b > 0) await pairedRounds(target, Math.min(BLOCK_WARMUP, warmup), { page: [], live: [] });
        await pairedRounds(target, n, samples[i]!);
      };
      const there = async (): Promise<void> => {
        if (b > 0) await apart.rounds(target.port, target.path, Math.min(BLOCK_WARMUP, warmup));
        const r = await apart.rounds(target.port, target.path, n);
        samples[i]!.apart.page.push(...r.page);
        samples[i]!.apart.live.push(...r.live);
      };
      if (b % 2 === 0) {
        await here();
        await there();
      } else {
        await there();
        await here();
      }
    }
  }
  return targets.map((target, i) => {
    if (!target) return undefined;
    const s = samples[i]!;
    return { page: stats(s.page), live: stats(s.live), rows: rows[i], cpu: s.cpu, apart: { page: stats(s.apart.page), live: stats(s.apart.live) } };
  });
}

/** A journal's server, open for the page measurements, and the pages to time on it. */
interface OpenJournal {
  readonly runs: number;
  readonly label: string;
  readonly root: Awaited<ReturnType<typeof openRoot>>;
  server?: Server;
  http?: HttpClient;
  port?: number;
  readonly paths: Map<string, { first: string; deep?: string }>;
}

/** Opens a journal, works out its pages (their filters' values and deep cursors), and serves it on a port of its own. */
async function openJournal(o: ReadOptions, runs: number, configPath: string, label: string, into: OpenJournal[]): Promise<OpenJournal> {
  const root = await openRoot({ cwd: o.work, configPath, profile: 'server' });
  const j: OpenJournal = { runs, label, root, paths: new Map() };
  into.push(j);
  const db = root.container.get<Knex>(Database);
  const count = Number(rowsOf(await db.raw('SELECT count(*) AS n FROM runs'))[0]!.n);
  if (count < runs) throw new Error(`the journal holds ${count} runs, expected ${runs}`);
  const newest = Number(rowsOf(await db.raw('SELECT max(created_at) AS t FROM runs'))[0]!.t);
  const codec = root.container.get(CursorCodec);
  const repo = root.container.get(KnexRunRepository);
  const historyRepo = new KnexHistoryRepository(db);
  for (const def of await defineCases(db, runs, newest)) {
    const c = await prepareCase(def, db, repo, codec);
    j.paths.set(`runs ${c.name}`, { first: pathOf('runs', withPage(c.query)), deep: c.deepCursor ? pathOf('runs', withPage(c.query, c.deepCursor)) : undefined });
  }
  const listRows = new Map<string, number>();
  for (const def of await defineListCases(db)) {
    const c = await prepareListCase(def, db, historyRepo, codec, listRows);
    j.paths.set(`${c.spec.list} ${c.name}`, { first: pathOf(c.spec.list, withPage(c.query)), deep: c.deepCursor ? pathOf(c.spec.list, withPage(c.query, c.deepCursor)) : undefined });
  }
  const serverLog = join(o.work, `server-read-${label}.log`);
  rmSync(serverLog, { force: true });
  j.server = await startServer(root, { port: 0, host: '127.0.0.1', logger: pino({ level: 'info', base: undefined }, pino.destination({ dest: serverLog, sync: true })) });
  j.port = (j.server.address() as AddressInfo).port;
  j.http = new HttpClient(j.port);
  return j;
}

/** Every list page and the overview on every journal, all servers up at once (see pairedAcross). */
async function measurePages(o: ReadOptions): Promise<JournalFigures[]> {
  const open: OpenJournal[] = [];
  const apart = new ClientProcess(o.repo);
  try {
    for (const j of o.journals) await openJournal(o, j.runs, j.configPath, j.label ?? String(j.runs), open);
    const figures = open.map((j) => ({ runs: j.runs, label: j.label, pages: [] as PageFigures[], workflows: undefined as Paired | undefined }));
    const keys = [...new Set(open.flatMap((j) => [...j.paths.keys()]))];
    const targetsOf = (pick: (j: OpenJournal) => string | undefined): Array<Target | undefined> =>
      open.map((j) => {
        const path = pick(j);
        return path === undefined ? undefined : { http: j.http!, port: j.port!, path, databaseCpuMs: o.journals[open.indexOf(j)]!.databaseCpuMs };
      });
    for (const key of keys) {
      const first = await pairedAcross(targetsOf((j) => j.paths.get(key)?.first), o.iterations, o.warmup, apart);
      const deep = await pairedAcross(targetsOf((j) => j.paths.get(key)?.deep), o.iterations, o.warmup, apart);
      open.forEach((j, i) => {
        const f = first[i];
        if (!f) return;
        const d = deep[i];
        const shown = (p: Paired): string => `${fmt(p.apart.page.p50)} ms (/live ${fmt(p.apart.live.p50)}; in one process ${fmt(p.page.p50)}, /live ${fmt(p.live.p50)})`;
        o.log(`${j.label} ${key}: first p50 ${shown(f)}${d ? `, deep p50 ${shown(d)}` : ''}`);
        figures[i]!.pages.push({ key, first: f, deep: d });
      });
    }
    const workflows = await pairedAcross(targetsOf(() => '/api/history/workflows'), o.iterations, o.warmup, apart);
    open.forEach((j, i) => {
      figures[i]!.workflows = workflows[i];
      o.log(`${j.label} workflows: p50 ${fmt(workflows[i]!.apart.page.p50)} ms (/live ${fmt(workflows[i]!.apart.live.p50)})`);
    });
    return figures;
  } finally {
    await apart.close();
    for (const j of open) {
      j.http?.close();
      if (j.server) await new Promise<void>((res) => j.server!.close(() => res()));
      await j.root.close();
    }
  }
}

/**
 * `CLIENTS` connections for `CANNON_SECONDS` against `path`, from autocannon in a process of its own (in this one,
 * the load generator would take the server's event loop from it).
 */
async function cannon(repo: string, port: number, path: string): Promise<CannonResult> {
  const cli = join(repo, 'node_modules', 'autocannon', 'autocannon.js');
  const child = spawn(process.execPath, [cli, '--json', '-c', String(CLIENTS), '-d', String(CANNON_SECONDS), `http://127.0.0.1:${port}${path}`], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`autocannon exited with ${code}`);
  return JSON.parse(out) as CannonResult;
}

/** A process appending new runs to the journal (read-writer.ts), from run index `from` on, until stopped. */
function startWriter(o: ReadOptions, configPath: string, from: number): ChildProcess {
  return spawn(process.execPath, [join(o.repo, 'dist', 'bench', 'read-writer.js'), configPath, String(from)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function measureConcurrent(o: ReadOptions, runs: number, configPath: string): Promise<CannonFigures[]> {
  const root = await openRoot({ cwd: o.work, configPath, profile: 'server' });
  const server = await startServer(root, { port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
  const port = (server.address() as AddressInfo).port;
  const db = root.container.get<Knex>(Database);
  const path = pathOf('runs', withPage({ workflow: PICKS.workflow }));
  const out: CannonFigures[] = [];
  try {
    const live = await cannon(o.repo, port, '/live');
    const page = await cannon(o.repo, port, path);
    out.push({ label: `${CLIENTS} clients, ${CANNON_SECONDS} s`, path, page, live });
    o.log(`${runs} concurrent: page ${Math.round(page.requests.average)} req/s p99 ${page.latency.p99} ms, /live ${Math.round(live.requests.average)} req/s`);
    const before = Number(rowsOf(await db.raw('SELECT count(*) AS n FROM runs'))[0]!.n);
    const maxId = String(rowsOf(await db.raw('SELECT max(run_id) AS id FROM runs'))[0]!.id);
    const writer = startWriter(o, configPath, Number(maxId.slice(1)));
    try {
      // Let the writer start appending (node start, validation pass) before the clients come.
      await waitForRuns(db, before, 60_000);
      const liveW = await cannon(o.repo, port, '/live');
      const pageW = await cannon(o.repo, port, path);
      const after = Number(rowsOf(await db.raw('SELECT count(*) AS n FROM runs'))[0]!.n);
      out.push({ label: `${CLIENTS} clients, ${CANNON_SECONDS} s, another process appending runs (5 a transaction)`, path, page: pageW, live: liveW, writerRuns: after - before });
      o.log(`${runs} concurrent with a writer: page ${Math.round(pageW.requests.average)} req/s p99 ${pageW.latency.p99} ms, /live ${Math.round(liveW.requests.average)} req/s, ${after - before} runs appended`);
    } finally {
      if (writer.exitCode === null) {
        writer.kill('SIGTERM');
        await once(writer, 'exit');
      }
    }
  } finally {
    await new Promise<void>((res) => server.close(() => res()));
    await root.close();
  }
  return out;
}

async function waitForRuns(db: Knex, before: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const n = Number(rowsOf(await db.raw('SELECT count(*) AS n FROM runs'))[0]!.n);
    if (n > before) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the writer appended nothing within ${timeoutMs / 1000} s`);
}

export async function benchRead(o: ReadOptions): Promise<{ text: string; pass: boolean }> {
  const started = new Date();
  const loadAtStart = loadavg()[0]!;
  const figures: JournalFigures[] = [];
  if (!process.argv.includes('--no-pages')) figures.push(...(await measurePages(o)));
  const largest = o.journals[o.journals.length - 1]!;
  // Across stores the concurrent clients are left out: their writer would append to the kept PostgreSQL copy.
  const concurrent = process.argv.includes('--no-concurrent') || o.compare === 'store' ? [] : await measureConcurrent(o, largest.runs, largest.configPath);
  const env = `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(2)} at start / ${loadavg()[0]!.toFixed(2)} at end (other processes share the machine)`;
  if (o.compare === 'store') return renderStores(started, env, figures);
  return renderRead(started, env, figures, concurrent, largest.runs);
}

const ratio = (p: Timed): number => p.page.p50 / p.live.p50;
/** A page's p50 ÷ /live's as each client saw them: the client apart's, then the in-process one's in brackets. */
const both = (p: Paired): string => `${x(ratio(p.apart))} (${x(ratio(p))})`;
/** What the two clients are, for the reports. */
const CLIENTS_NOTE = 'Each page is timed by two clients in turn, each beside /live: one in a process of its own, as a user\'s client is (judged), and one in the bench\'s own process (in brackets), where /live never leaves one thread while a page waits for the database\'s (docs/benchmarks.md).';
const x = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(2)}x` : '—');

function renderRead(started: Date, env: string, figures: JournalFigures[], concurrent: CannonFigures[], concurrentRuns: number): { text: string; pass: boolean } {
  const large = figures[figures.length - 1] ?? { runs: 0, label: '', pages: [], workflows: undefined };
  const small = figures.length > 1 ? figures[0] : undefined;
  const smallBy = new Map((small?.pages ?? []).map((p) => [p.key, p]));
  const verdicts: Array<[boolean, string]> = [];
  const uncompared: string[] = [];
  const out: string[] = [`# chainflow bench: read side (${started.toISOString()})`, '', env, ''];
  out.push(`## History list pages over HTTP (limit ${PAGE_LIMIT}), each timed in turn with GET /live: p50 in ms`, '');
  out.push(`Target at ${large.runs.toLocaleString('en-US')} runs: page p50 <= ${READ_TARGETS.pageToLive}x /live${small ? ` and <= ${READ_TARGETS.largeToSmall}x the same page at ${small.runs.toLocaleString('en-US')} runs` : ''}.`, '', CLIENTS_NOTE, '');
  const cols = small ? `| page | rows at ${small.runs} / ${large.runs} | ${small.runs} p50 | ${large.runs} p50 | /live p50 | x /live (in one process) | x ${small.runs} |` : `| page | rows | p50 | /live p50 | x /live (in one process) |`;
  out.push(cols, small ? '|---|---:|---:|---:|---:|---:|---:|' : '|---|---:|---:|---:|---:|');
  for (const p of large.pages) {
    for (const [which, fig] of [['first', p.first], ['deep', p.deep]] as const) {
      if (!fig) continue;
      const s = smallBy.get(p.key)?.[which];
      const toSmall = s ? fig.apart.page.p50 / s.apart.page.p50 : NaN;
      out.push(small
        ? `| ${p.key} ${which} | ${s?.rows ?? '—'} / ${fig.rows ?? '—'} | ${s ? fmt(s.apart.page.p50) : '—'} | ${fmt(fig.apart.page.p50)} | ${fmt(fig.apart.live.p50)} | ${both(fig)} | ${x(toSmall)} |`
        : `| ${p.key} ${which} | ${fig.rows ?? '—'} | ${fmt(fig.apart.page.p50)} | ${fmt(fig.apart.live.p50)} | ${both(fig)} |`);
      verdicts.push([ratio(fig.apart) <= READ_TARGETS.pageToLive, `${p.key} ${which}: ${x(ratio(fig.apart))} /live`]);
      // A page that answers fewer rows on the small journal (20 replay sessions at 100k, 207 at 1M) is not the same
      // work: the size ratio is shown but not judged.
      if (s && s.rows !== fig.rows) uncompared.push(`${p.key} ${which} (${s.rows ?? '—'} rows at ${small!.runs}, ${fig.rows ?? '—'} at ${large.runs})`);
      else if (s) verdicts.push([toSmall <= READ_TARGETS.largeToSmall, `${p.key} ${which}: ${x(toSmall)} the ${small!.runs}-run page`]);
    }
  }
  if (uncompared.length) out.push('', `Not compared with the ${small?.runs ?? ''}-run page (it answers fewer rows there, so it is not the same work): ${uncompared.join('; ')}.`);
  out.push('', '## Workflows overview: GET /api/history/workflows, in turn with GET /live', '', '| journal | p50 | p99 | /live p50 | x /live (in one process) |', '|---:|---:|---:|---:|---:|');
  for (const f of figures) if (f.workflows) out.push(`| ${f.runs} | ${fmt(f.workflows.apart.page.p50)} | ${fmt(f.workflows.apart.page.p99)} | ${fmt(f.workflows.apart.live.p50)} | ${both(f.workflows)} |`);
  if (large.workflows) verdicts.push([ratio(large.workflows.apart) <= READ_TARGETS.workflowsToLive, `workflows overview: ${x(ratio(large.workflows.apart))} /live`]);
  if (concurrent.length) {
    out.push('', `## ${CLIENTS} concurrent clients (autocannon in its own process), ${concurrentRuns.toLocaleString('en-US')}-run journal`, '');
    out.push('| case | path | req/s | /live req/s | share of /live | p50 ms | p99 ms | max ms | errors, timeouts, non-2xx | runs appended meanwhile |', '|---|---|---:|---:|---:|---:|---:|---:|---|---:|');
    for (const c of concurrent) {
      const share = c.page.requests.average / c.live.requests.average;
      const bad = c.page.errors + c.page.timeouts + c.page.non2xx;
      out.push(`| ${c.label} | ${c.path} | ${Math.round(c.page.requests.average)} | ${Math.round(c.live.requests.average)} | ${(share * 100).toFixed(0)}% | ${c.page.latency.p50} | ${c.page.latency.p99} | ${c.page.latency.max} | ${c.page.errors}, ${c.page.timeouts}, ${c.page.non2xx} | ${c.writerRuns ?? '—'} |`);
      verdicts.push([share >= READ_TARGETS.concurrentShareOfLive, `${c.label}: ${(share * 100).toFixed(0)}% of /live's req/s`]);
      verdicts.push([c.page.latency.p99 <= READ_TARGETS.concurrentP99Ms, `${c.label}: p99 ${c.page.latency.p99} ms`]);
      verdicts.push([bad === 0, `${c.label}: ${bad} errors`]);
    }
  }
  const failed = verdicts.filter(([ok]) => !ok);
  out.push('', `## Verdicts: ${verdicts.length - failed.length} of ${verdicts.length} met`, '');
  for (const [, v] of failed) out.push(`- **missed** ${v}`);
  out.push('');
  return { text: out.join('\n'), pass: failed.length === 0 };
}

/**
 * One journal in two stores (`--postgres`): each page on SQLite and on PostgreSQL, each beside /live on its own
 * server; the last store (PostgreSQL) is judged, the first shown beside it.
 */
function renderStores(started: Date, env: string, figures: JournalFigures[]): { text: string; pass: boolean } {
  const judged = figures[figures.length - 1]!;
  const other = figures.length > 1 ? figures[0]! : undefined;
  const otherBy = new Map((other?.pages ?? []).map((p) => [p.key, p]));
  const verdicts: Array<[boolean, string]> = [];
  const out: string[] = [`# chainflow bench: read side, ${figures.map((f) => f.label).join(' and ')} (${started.toISOString()})`, '', env, ''];
  out.push(`## History list pages over HTTP (limit ${PAGE_LIMIT}) at ${judged.runs.toLocaleString('en-US')} runs, each timed in turn with GET /live: p50 in ms`, '');
  out.push(`Target on ${judged.label}: page p50 <= ${READ_TARGETS.pageToLive}x /live.`, '', CLIENTS_NOTE, '');
  out.push(`CPU per request (ms), in the in-process client's rounds: this process's (server and client) for the page and for /live, with the database server's processes' for the page where known; "CPU x /live" is (page + database) ÷ /live: what the page costs without the wait for a core.`, '');
  const head = other ? `| page | rows | ${other.label} p50 | ${other.label} x /live (in one process) | ${judged.label} p50 | /live p50 | x /live (in one process) | ${judged.label} ÷ ${other.label} | CPU page + database / live | CPU x /live |` : '| page | rows | p50 | /live p50 | x /live (in one process) |';
  out.push(head, other ? '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|' : '|---|---:|---:|---:|---:|');
  const cpu = (c?: Cpu): string => (c && c.n ? `${fmt(c.page / c.n, 3)} + ${fmt(c.database / c.n, 3)} / ${fmt(c.live / c.n, 3)} | ${x((c.page + c.database) / c.live)}` : '— | —');
  const row = (label: string, fig: Paired, o?: Paired): string => (other
    ? `| ${label} | ${fig.rows ?? '—'} | ${o ? fmt(o.apart.page.p50) : '—'} | ${o ? both(o) : '—'} | ${fmt(fig.apart.page.p50)} | ${fmt(fig.apart.live.p50)} | ${both(fig)} | ${o ? x(fig.apart.page.p50 / o.apart.page.p50) : '—'} | ${cpu(fig.cpu)} |`
    : `| ${label} | ${fig.rows ?? '—'} | ${fmt(fig.apart.page.p50)} | ${fmt(fig.apart.live.p50)} | ${both(fig)} |`);
  for (const p of judged.pages) {
    for (const [which, fig] of [['first', p.first], ['deep', p.deep]] as const) {
      if (!fig) continue;
      out.push(row(`${p.key} ${which}`, fig, otherBy.get(p.key)?.[which]));
      verdicts.push([ratio(fig.apart) <= READ_TARGETS.pageToLive, `${judged.label} ${p.key} ${which}: ${both(fig)} /live`]);
    }
  }
  if (judged.workflows) {
    out.push(row('workflows overview', judged.workflows, other?.workflows));
    verdicts.push([ratio(judged.workflows.apart) <= READ_TARGETS.workflowsToLive, `${judged.label} workflows overview: ${both(judged.workflows)} /live`]);
  }
  const figs = judged.pages.flatMap((p) => [p.first, p.deep]).filter((f): f is Paired => f !== undefined);
  const ratios = figs.map((f) => ratio(f.apart)).sort((a, b) => a - b);
  const inOne = figs.map(ratio).sort((a, b) => a - b);
  const failed = verdicts.filter(([ok]) => !ok);
  const cpus = judged.pages.flatMap((p) => [p.first.cpu, p.deep?.cpu]).filter((c): c is Cpu => Boolean(c?.n)).map((c) => (c.page + c.database) / c.live).sort((a, b) => a - b);
  const range = (r: number[]): string => (r.length ? `${x(r[0]!)} – ${x(r[r.length - 1]!)}, median ${x(r[Math.floor(r.length / 2)]!)}` : '—');
  const within = inOne.filter((r) => r <= READ_TARGETS.pageToLive).length;
  out.push('', `## Verdicts: ${verdicts.length - failed.length} of ${verdicts.length} met (pages ${range(ratios)}; in one process ${range(inOne)}, ${within} of ${inOne.length} pages within ${READ_TARGETS.pageToLive}x; CPU x /live ${range(cpus)})`, '');
  for (const [, v] of failed) out.push(`- **missed** ${v}`);
  out.push('');
  return { text: out.join('\n'), pass: failed.length === 0 };
}
