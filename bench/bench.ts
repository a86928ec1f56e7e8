/**
 * `npm run bench`: builds a journal of BENCH_RUNS runs (default 1,000,000, ~10 events each) through the import
 * use case into SQLite, then times runs pages (first and deep, unfiltered and per filter) at the use-case level
 * and over HTTP, prints the query plans, and times a cold `chainflow history --json`; then the other history
 * lists (txs, approvals, waiting, reorgs, replays) the same way, the workflows overview, and the CSV and JSON
 * exports of every run, each in a child process (time, peak RSS); then the web UI, the spend ledger and the relayers'
 * address book. Report: stdout and `.bench/report.md`. `--reuse` keeps an existing `.bench/journal-<N>.db` instead of
 * rebuilding it; `--spend`, `--ui`, `--engine`, `--sends`, `--relayers`, `--events`, `--cli`, `--import-cli` and
 * `--export` measure one part alone, `--lighthouse` the runs view's Lighthouse scores (bench/lighthouse.ts), `--copy`
 * `chainflow storage copy` into a throwaway PostgreSQL (bench/copy.ts; BENCH_COPY_FROM=PATH copies another journal),
 * `--scale` several processes on one database, PostgreSQL beside SQLite (bench/scale.ts), `--read` the read side
 * (list pages and overview beside /live at two journal sizes, concurrent clients; see read.ts).
 */
import 'reflect-metadata';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { ndjsonFile } from '../src/adapters/ndjson-file';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Knex } from 'knex';
import pino from 'pino';
import { KnexHistoryRepository } from '../src/adapters/knex/knex-history.repository';
import { KnexRunRepository } from '../src/adapters/knex/knex-run.repository';
import { Database } from '../src/adapters/knex/knex-journal.writer';
import { ListApprovals } from '../src/application/history/list-approvals.use-case';
import { ListReorgs } from '../src/application/history/list-reorgs.use-case';
import { ListReplays } from '../src/application/history/list-replays.use-case';
import { ListRuns } from '../src/application/history/list-runs.use-case';
import { ListSends } from '../src/application/history/list-sends.use-case';
import { ListWaiting } from '../src/application/history/list-waiting.use-case';
import { ListWorkflows } from '../src/application/history/list-workflows.use-case';
import { ImportJournal } from '../src/application/journal/import-journal.use-case';
import { openRoot, type Root } from '../src/bin/root';
import { startServer } from '../src/bin/server';
import { CursorCodec } from '../src/domain/cursor';
import { benchEvents, renderEvents } from './events';
import { benchEventsReplay, renderEventsReplay } from './events-replay';
import { benchEventsLive, renderEventsLive } from './events-live';
import { PAGE_LIMIT, defineCases, prepareCase, sqlOf } from './cases';
import { measureAuth } from './auth';
import { cliPlugins, measureCliCold, renderCliCold } from './cli';
import { benchSpend, renderSpend } from './spend';
import { benchRead } from './read';
import { ensurePgJournal } from './pg-journal';
import { benchImport, renderImport } from './import';
import { benchImportCli, renderImportCli } from './import-cli';
import { benchEngine, renderEngine } from './engine';
import { benchRelayers, renderRelayers } from './relayers';
import { benchNotifications, renderNotifications } from './notifications';
import { benchLighthouse, renderLighthouse } from './lighthouse';
import { benchCopy, renderCopy } from './copy';
import { benchSends, renderSends } from './sends';
import { benchScale, renderScale } from './scale';
import { measureUi, UI_FIRST_PAGE_TARGET_MS, UI_PAGE_BYTES_TARGET, type UiFigures } from './ui';
import { measureExport, type ExportFigures } from './export';
import { runLines, writeJournal, type JournalShape } from './generate';
import { defineListCases, prepareListCase, timeListCase, timeWorkflows, type ListCase, type ListTimings, type PagedUseCase, type WorkflowsFigures } from './lists';
import { renderReport, type BuildFigures, type CaseTimings } from './report';
import { HttpClient, measure, nowMs } from './timing';

const REPO = resolve(__dirname, '..', '..');
const WORK = join(REPO, '.bench');
const CHUNK_RUNS = 50_000;
const ITERATIONS = positiveInt('BENCH_ITERATIONS', 200);
const WARMUP = positiveInt('BENCH_WARMUP', 20);
const CLI_RUNS = 10;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, not '${raw}'`);
  return v;
}

const log = (msg: string): void => void process.stderr.write(`[bench] ${msg}\n`);
const fileMb = (path: string): number => (existsSync(path) ? statSync(path).size / 1048576 : 0);
const peakRssMb = (): number => process.resourceUsage().maxRSS / 1024;
type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows);

async function build(root: Root, shape: JournalShape): Promise<Omit<BuildFigures, 'dbMb' | 'walMb' | 'peakRssMb' | 'reused'>> {
  // The generator's own cost, for reading the import figure (not part of it).
  const probeRuns = Math.min(CHUNK_RUNS, shape.runs);
  const g0 = nowMs();
  let probeLines = 0;
  for (let i = 0; i < probeRuns; i++) probeLines += runLines(shape, i).length;
  const generatorLinesPerSec = probeLines / ((nowMs() - g0) / 1000);

  // Each chunk is written to an NDJSON file first (untimed), then imported from it as `chainflow journal
  // import FILE` does: the figure is the import's, not the generator's.
  const importer = root.container.get(ImportJournal);
  const chunkFile = join(WORK, 'chunk.ndjson');
  let importMs = 0;
  const start = nowMs();
  let events = 0;
  let lines = 0;
  for (let from = 0; from < shape.runs; from += CHUNK_RUNS) {
    const to = Math.min(shape.runs, from + CHUNK_RUNS);
    await writeJournal(chunkFile, shape, from, to);
    const t0 = nowMs();
    const report = await importer.execute(ndjsonFile(chunkFile));
    importMs += nowMs() - t0;
    if (report.duplicates) throw new Error(`unexpected duplicates in runs ${from}..${to}: ${report.duplicates}`);
    events += report.events;
    lines += report.lines;
    const secs = importMs / 1000;
    log(`build: ${to.toLocaleString('en-US')}/${shape.runs.toLocaleString('en-US')} runs, ${events.toLocaleString('en-US')} events, ` +
      `${secs.toFixed(1)} s, ${Math.round(events / secs).toLocaleString('en-US')} events/s, peak RSS ${peakRssMb().toFixed(0)} MB`);
  }
  rmSync(chunkFile, { force: true });
  log(`build: ${((nowMs() - start) / 1000).toFixed(0)} s in all, of which import ${(importMs / 1000).toFixed(0)} s`);
  const seconds = importMs / 1000;
  return { runs: shape.runs, events, lines, seconds, eventsPerSec: events / seconds, generatorLinesPerSec };
}

async function spendOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  const figures = await benchSpend({
    work: WORK, entries: positiveInt('BENCH_SPEND_ENTRIES', 1_000_000), reuse: process.argv.includes('--reuse'), iterations: ITERATIONS, warmup: WARMUP, log,
  });
  const { text, pass } = renderSpend(figures);
  writeFileSync(join(WORK, 'report-spend.md'), text);
  process.stdout.write(text);
  process.exitCode = pass ? 0 : 1;
}

/** `--ui`: the web UI's figures in Chromium against the server on the (reused or built) 1M-run journal. */
async function uiOnly(): Promise<void> {
  const runs = positiveInt('BENCH_RUNS', 1_000_000);
  const dbName = `journal-${runs}.db`;
  if (!existsSync(join(WORK, dbName))) throw new Error(`--ui needs ${join(WORK, dbName)}: run the bench once without --ui`);
  const configPath = join(WORK, 'chainflow.yaml');
  writeFileSync(configPath, `chainflow_version: 1\nstorage:\n  url: sqlite:${dbName}\n`);
  const root = await openRoot({ cwd: WORK, configPath, profile: 'server' });
  const server = await startServer(root, { port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
  try {
    const count = Number(rowsOf(await root.container.get<Knex>(Database).raw('SELECT count(*) AS n FROM runs'))[0]!.n);
    const ui = await measureUi(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { samples: 20 });
    const text = renderUi(ui, count);
    writeFileSync(join(WORK, 'report-ui.md'), text.text);
    process.stdout.write(text.text);
    process.exitCode = text.pass ? 0 : 1;
  } finally {
    await new Promise<void>((res) => server.close(() => res()));
    await root.close();
  }
}

function renderUi(ui: UiFigures, runs: number): { text: string; pass: boolean } {
  const firstOk = ui.firstPageMs.p50 <= UI_FIRST_PAGE_TARGET_MS;
  const weightOk = ui.pageBytes <= UI_PAGE_BYTES_TARGET;
  const text = [
    `## Web UI (Chromium, ${runs.toLocaleString('en-US')}-run journal)`, '',
    `- Runs view, navigation to first page on screen: p50 **${ui.firstPageMs.p50.toFixed(0)} ms**, max ${ui.firstPageMs.max.toFixed(0)} ms over ${ui.firstPageMs.samples} navigations — target ≤ ${UI_FIRST_PAGE_TARGET_MS} ms: ${firstOk ? 'met' : '**missed**'}`,
    `- The same on the very first visit (empty browser cache): ${ui.coldFirstPageMs.toFixed(0)} ms`,
    `- Page weight (the shell, its stylesheet and every ES module: ${ui.pageFiles} files): **${ui.pageBytes.toLocaleString('en-US')} bytes** — target ≤ 250 KB: ${weightOk ? 'met' : '**missed**'}`, '',
  ].join('\n');
  return { text, pass: firstOk && weightOk };
}

/** Writes a part's report to `.bench/report-<name>.md` and stdout; the exit code says whether its targets were met. */
function publish(name: string, { text, pass }: { text: string; pass: boolean }): void {
  writeFileSync(join(WORK, `report-${name}.md`), text);
  process.stdout.write(text);
  process.exitCode = pass ? 0 : 1;
}

/** `--engine`: the engine's figures (step overhead, throughput, recovery after kill -9, webhook acceptance). */
async function engineOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  publish('engine', renderEngine(await benchEngine({ work: WORK, repo: REPO, log })));
}

/**
 * `--copy`: `chainflow storage copy` of `.bench/journal-<BENCH_RUNS>.db` (built when missing) or of BENCH_COPY_FROM
 * (any SQLite journal, opened read-only) into a throwaway PostgreSQL cluster (bench/copy.ts).
 */
async function copyOnly(): Promise<void> {
  const given = process.env.BENCH_COPY_FROM;
  let journal = given ? resolve(given) : undefined;
  if (!journal) {
    const runs = positiveInt('BENCH_RUNS', 1_000_000);
    const configPath = await ensureJournal(runs);
    // The bench's own journal may come from an older build: brought to this schema first (the copy requires it).
    // A journal named by BENCH_COPY_FROM is left as it is.
    await (await openRoot({ cwd: WORK, configPath })).close();
    journal = join(WORK, `journal-${runs}.db`);
  }
  mkdirSync(WORK, { recursive: true });
  publish('copy', renderCopy(await benchCopy({ repo: REPO, journal, log })));
}

/** `--scale`: several processes on one database, PostgreSQL beside SQLite (runs/s, takeover after kill -9); see scale.ts. */
async function scaleOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  publish('scale', renderScale(await benchScale({ work: WORK, repo: REPO, runs: positiveInt('BENCH_SCALE_RUNS', 9000), log })));
}

/** `--notifications`: a notification from the failing step to the receiver's 2xx. */
async function notificationsOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  publish('notifications', renderNotifications(await benchNotifications({ work: WORK, log })));
}

/** `--lighthouse`: the runs view's Lighthouse scores, light and dark (skipped, saying how to install it, without Lighthouse). */
async function lighthouseOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  publish('lighthouse', renderLighthouse(await benchLighthouse({ work: WORK, log })));
}

/** `--relayers`: the address book's figures (50 relayers on anvil; every provider down). */
async function relayersOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  publish('relayers', renderRelayers(await benchRelayers({ work: WORK, iterations: ITERATIONS, warmup: WARMUP, log })));
}

/**
 * `--events`: the event trigger on anvil: the backfill (10,000 logs over 2,000 blocks; again with wide ranges refused),
 * then live (20 logs/s for 60 s through `chainflow start`, with a reorg of depth 3), then a replay of 1,000 logs.
 * `--live`: only the live case.
 */
async function eventsOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  const live = process.argv.includes('--live');
  const parts = live ? [] : [renderEvents(await benchEvents({ work: WORK, log }))];
  parts.push(renderEventsLive(await benchEventsLive({ work: WORK, repo: REPO, log })));
  if (!live) parts.push(renderEventsReplay(await benchEventsReplay({ work: WORK, log })));
  publish('events', { text: parts.map((p) => p.text).join('\n'), pass: parts.every((p) => p.pass) });
}

/** `--sends`: the send path's figures on anvil (step overhead, 200 sends of one relayer, kill -9 at 20 moments). */
async function sendsOnly(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  publish('sends', renderSends(await benchSends({ work: WORK, repo: REPO, log })));
}

/**
 * `--import`: the journal import alone (perf-write, issue #14): a fresh `.bench/import-<BENCH_RUNS>.db` built as
 * the full bench builds its journal, then the same import while an engine process appends to the same file.
 */
async function importOnly(): Promise<void> {
  const runs = positiveInt('BENCH_RUNS', 1_000_000);
  mkdirSync(WORK, { recursive: true });
  const figures = await benchImport({ work: WORK, repo: REPO, runs, log, build: (root, shape) => build(root, shape) });
  const { text, pass } = renderImport(figures);
  writeFileSync(join(WORK, 'report-import.md'), text);
  process.stdout.write(text);
  process.exitCode = pass ? 0 : 1;
}

/**
 * `--import-cli`: `chainflow journal import FILE` timed end to end as a user times it (issue #29), see import-cli.ts.
 * BENCH_IMPORT_CLI_RUNS (default 100000) runs in the file, BENCH_IMPORT_CLI_ROUNDS (default 5) timed rounds.
 */
async function importCliOnly(): Promise<void> {
  const runs = positiveInt('BENCH_IMPORT_CLI_RUNS', 100_000);
  const rounds = positiveInt('BENCH_IMPORT_CLI_ROUNDS', 5);
  publish('import-cli', renderImportCli(await benchImportCli({ work: WORK, repo: REPO, runs, rounds, other: process.env.BENCH_IMPORT_CLI_B || undefined, log })));
}

/**
 * `--cli`: the CLI's cold start alone, against `.bench/journal-<BENCH_RUNS>.db` (built first when missing; a quick
 * figure: `BENCH_RUNS=20000 npm run bench -- --cli`).
 */
async function cliOnly(): Promise<void> {
  const runs = positiveInt('BENCH_RUNS', 1_000_000);
  const configPath = await ensureJournal(runs);
  const env = `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(2)} (other processes share the machine)`;
  const cli = renderCliCold(measureCliCold(REPO, configPath, Math.min(PAGE_LIMIT, runs)), cliPlugins(REPO));
  const text = [`# chainflow bench: CLI cold start (${runs.toLocaleString('en-US')}-run journal)`, '', env, '', ...cli.lines, `${cli.pass ? 'PASS' : 'FAIL'} ${cli.verdict}`, ''].join('\n');
  writeFileSync(join(WORK, 'report-cli.md'), text);
  process.stdout.write(text);
  process.exitCode = cli.pass ? 0 : 1;
}

/** `.bench/journal-<runs>.db`, built first when missing (as the full bench does); returns its config path. */
async function ensureJournal(runs: number): Promise<string> {
  mkdirSync(WORK, { recursive: true });
  const dbName = `journal-${runs}.db`;
  const configPath = join(WORK, `chainflow-${runs}.yaml`);
  writeFileSync(configPath, `chainflow_version: 1\nstorage:\n  url: sqlite:${dbName}\n`);
  if (!existsSync(join(WORK, dbName))) {
    const root = await openRoot({ cwd: WORK, configPath, profile: 'server' });
    try {
      log(`building a journal of ${runs.toLocaleString('en-US')} runs in ${join(WORK, dbName)}`);
      await build(root, { runs, end: Math.floor(Date.now() / 1000) * 1000 });
    } finally {
      await root.close();
    }
  }
  return configPath;
}

/**
 * `--read`: the read side of issue #14 alone: every history list page and the workflows overview at the small
 * and the large journal (BENCH_READ_RUNS, default 100000,1000000; each built when missing), each beside `GET /live`
 * in the same run; 50 concurrent clients on a filtered runs page, alone and beside a writer. `--build-only` stops
 * after the journals exist.
 */
async function readOnly(): Promise<void> {
  const sizes = (process.env.BENCH_READ_RUNS ?? '100000,1000000').split(',').map((x) => Number(x.replace(/_/g, '')));
  if (sizes.some((x) => !Number.isSafeInteger(x) || x < 1)) throw new Error(`BENCH_READ_RUNS must be positive integers, not '${process.env.BENCH_READ_RUNS}'`);
  if (process.argv.includes('--postgres')) return readPostgres(sizes[sizes.length - 1]!);
  const configs: Array<{ runs: number; configPath: string }> = [];
  for (const runs of sizes) configs.push({ runs, configPath: await ensureJournal(runs) });
  if (process.argv.includes('--build-only')) return;
  const { text, pass } = await benchRead({ work: WORK, repo: REPO, journals: configs, iterations: ITERATIONS, warmup: WARMUP, log });
  writeFileSync(join(WORK, 'report-read.md'), text);
  process.stdout.write(text);
  process.exitCode = pass ? 0 : 1;
}

/**
 * `--read --postgres` (issue #29): the same pages and overview on the large journal in SQLite and in PostgreSQL (a copy
 * kept between runs, see pg-journal.ts), each beside /live on its own server; PostgreSQL's pages are judged.
 */
async function readPostgres(runs: number): Promise<void> {
  const sqliteConfig = await ensureJournal(runs);
  const pg = await ensurePgJournal({ work: WORK, repo: REPO, sqlitePath: join(WORK, `journal-${runs}.db`), runs, log });
  try {
    if (process.argv.includes('--build-only')) return;
    const pgConfig = join(WORK, `chainflow-pg-${runs}.yaml`);
    writeFileSync(pgConfig, `chainflow_version: 1\nstorage:\n  url: ${pg.url}\n`);
    const journals = [{ runs, configPath: sqliteConfig, label: 'SQLite' }, { runs, configPath: pgConfig, label: 'PostgreSQL', databaseCpuMs: pg.cpuMs }];
    const { text, pass } = await benchRead({ work: WORK, repo: REPO, journals, compare: 'store', iterations: ITERATIONS, warmup: WARMUP, log });
    writeFileSync(join(WORK, 'report-read-postgres.md'), text);
    process.stdout.write(text);
    process.exitCode = pass ? 0 : 1;
  } finally {
    pg.stop();
  }
}

/** Targets of the exports (issue #14): each format, every run of the journal. */
const EXPORT_TARGETS = { runsPerSec: 50_000, peakRssMb: 150 } as const;

/**
 * `--export`: the CSV and JSON exports of every run alone, against `.bench/journal-<BENCH_RUNS>.db` (built first when
 * missing), each in a child process: runs/s and peak RSS (`BENCH_RUNS=100000 npm run bench -- --export --reuse`).
 */
async function exportOnly(): Promise<void> {
  const runs = positiveInt('BENCH_RUNS', 1_000_000);
  const configPath = await ensureJournal(runs);
  const loadAtStart = loadavg()[0]!;
  const lines = [`# chainflow bench: exports (${runs.toLocaleString('en-US')}-run journal)`, ''];
  let pass = true;
  for (const format of ['csv', 'json'] as const) {
    const e = await measureExport(format, REPO, WORK, configPath, log);
    const ok = e.runsPerSec >= EXPORT_TARGETS.runsPerSec && e.peakRssMb <= EXPORT_TARGETS.peakRssMb;
    pass &&= ok;
    lines.push(`- export ${format}: ${e.runs.toLocaleString('en-US')} runs in ${e.seconds.toFixed(1)} s, **${Math.round(e.runsPerSec).toLocaleString('en-US')} runs/s**, ` +
      `peak RSS **${e.peakRssMb.toFixed(0)} MB**, ${(e.bytes / 1048576).toFixed(0)} MB written, ${e.cpuSeconds.toFixed(1)} s of CPU (${Math.round(e.runs / e.cpuSeconds).toLocaleString('en-US')} runs per CPU second) — target ≥ ${EXPORT_TARGETS.runsPerSec.toLocaleString('en-US')} runs/s, ` +
      `≤ ${EXPORT_TARGETS.peakRssMb} MB: ${ok ? 'met' : '**missed**'}`);
  }
  lines.push('', `node ${process.version}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(2)} at start / ${loadavg()[0]!.toFixed(2)} at end (other processes share the machine)`, '');
  const text = lines.join('\n');
  writeFileSync(join(WORK, 'report-export.md'), text);
  process.stdout.write(text);
  process.exitCode = pass ? 0 : 1;
}

async function main(): Promise<void> {
  if (process.argv.includes('--read')) return readOnly();
  if (process.argv.includes('--import-cli')) return importCliOnly();
  if (process.argv.includes('--import')) return importOnly();
  if (process.argv.includes('--export')) return exportOnly();
  if (process.argv.includes('--cli')) return cliOnly();
  if (process.argv.includes('--sends')) return sendsOnly();
  if (process.argv.includes('--engine')) return engineOnly();
  if (process.argv.includes('--scale')) return scaleOnly();
  if (process.argv.includes('--relayers')) return relayersOnly();
  if (process.argv.includes('--events')) return eventsOnly();
  if (process.argv.includes('--notifications')) return notificationsOnly();
  if (process.argv.includes('--spend')) return spendOnly();
  if (process.argv.includes('--ui')) return uiOnly();
  if (process.argv.includes('--lighthouse')) return lighthouseOnly();
  if (process.argv.includes('--copy')) return copyOnly();
  const started = new Date();
  const loadAtStart = loadavg()[0]!;
  const runs = positiveInt('BENCH_RUNS', 1_000_000);
  const reuseAsked = process.argv.includes('--reuse');
  mkdirSync(WORK, { recursive: true });
  const dbName = `journal-${runs}.db`;
  const dbPath = join(WORK, dbName);
  const configPath = join(WORK, 'chainflow.yaml');
  writeFileSync(configPath, `chainflow_version: 1\nstorage:\n  url: sqlite:${dbName}\n`);
  const reused = reuseAsked && existsSync(dbPath);
  if (reuseAsked && !reused) log(`--reuse: ${dbPath} not found, building it`);
  if (!reused) for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(dbPath + suffix, { force: true });

  let root: Root | undefined = await openRoot({ cwd: WORK, configPath, profile: 'server' });
  let server: Server | undefined;
  let client: HttpClient | undefined;
  try {
    const db = root.container.get<Knex>(Database);
    let built: Omit<BuildFigures, 'dbMb' | 'walMb' | 'peakRssMb' | 'reused'>;
    if (!reused) {
      log(`building a journal of ${runs.toLocaleString('en-US')} runs in ${dbPath}`);
      built = await build(root, { runs, end: Math.floor(Date.now() / 1000) * 1000 });
    } else {
      log(`reusing ${dbPath}`);
      const ev = Number(rowsOf(await db.raw('SELECT count(*) AS n FROM events'))[0]!.n);
      built = { runs, events: ev, lines: ev, seconds: 0, eventsPerSec: 0, generatorLinesPerSec: 0 };
    }
    const counts: Record<string, number> = {};
    for (const table of ['runs', 'events', 'sends', 'approvals', 'reorgs', 'sessions', 'run_relayers', 'run_tx_hashes', 'run_step_ids']) {
      counts[table] = Number(rowsOf(await db.raw(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
    }
    if (counts.runs !== runs) throw new Error(`the journal holds ${counts.runs} runs, expected ${runs} (rebuild without --reuse)`);
    const newest = Number(rowsOf(await db.raw('SELECT max(created_at) AS t FROM runs'))[0]!.t);
    const buildFigures: BuildFigures = {
      ...built, reused, peakRssMb: peakRssMb(), dbMb: fileMb(dbPath), walMb: fileMb(`${dbPath}-wal`),
    };

    // Cases: values, match counts, deep cursors, plans (untimed).
    const repo = root.container.get(KnexRunRepository);
    const codec = root.container.get(CursorCodec);
    const listRuns = root.container.get(ListRuns);
    const defs = await defineCases(db, runs, newest);
    const cases = [];
    for (const def of defs) {
      const t = nowMs();
      const c = await prepareCase(def, db, repo, codec);
      log(`case ${c.name}: ${c.matches.toLocaleString('en-US')} matches, deep after ${c.deepOffset.toLocaleString('en-US')} (setup ${(nowMs() - t).toFixed(0)} ms)`);
      cases.push(c);
    }
    const historyRepo = new KnexHistoryRepository(db);
    const listUseCases: Record<string, PagedUseCase> = {
      txs: root.container.get(ListSends), approvals: root.container.get(ListApprovals), waiting: root.container.get(ListWaiting),
      reorgs: root.container.get(ListReorgs), replays: root.container.get(ListReplays),
    };
    const listCases: ListCase[] = [];
    const listRows = new Map<string, number>();
    for (const def of await defineListCases(db)) {
      const t = nowMs();
      const c = await prepareListCase(def, db, historyRepo, codec, listRows);
      log(`case ${c.spec.list} ${c.name}: ${c.matches.toLocaleString('en-US')} matches of ${c.listRows.toLocaleString('en-US')}, deep after ${c.deepOffset.toLocaleString('en-US')} (setup ${(nowMs() - t).toFixed(0)} ms)`);
      listCases.push(c);
    }
    const withPage = (q: Readonly<Record<string, string>>, cursor?: string): Record<string, string> =>
      ({ ...q, limit: String(PAGE_LIMIT), ...(cursor ? { cursor } : {}) });

    // Use case.
    const useCase = new Map<string, Pick<CaseTimings, 'useCaseFirst' | 'useCaseDeep'>>();
    for (const c of cases) {
      const first = await listRuns.execute(withPage(c.query));
      if (first.items.length !== Math.min(PAGE_LIMIT, c.matches)) throw new Error(`${c.name}: first page has ${first.items.length} items, expected ${Math.min(PAGE_LIMIT, c.matches)}`);
      if (c.deepCursor) {
        const deep = await listRuns.execute(withPage(c.query, c.deepCursor));
        if (deep.items[0]?.run_id !== c.deepFirstId) throw new Error(`${c.name}: deep page starts at ${deep.items[0]?.run_id}, expected ${c.deepFirstId}`);
      }
      const useCaseFirst = await measure(() => listRuns.execute(withPage(c.query)), ITERATIONS, WARMUP);
      const useCaseDeep = c.deepCursor ? await measure(() => listRuns.execute(withPage(c.query, c.deepCursor)), ITERATIONS, WARMUP) : undefined;
      log(`use case ${c.name}: first p50 ${useCaseFirst.p50.toFixed(2)} ms${useCaseDeep ? `, deep p50 ${useCaseDeep.p50.toFixed(2)} ms` : ''}`);
      useCase.set(c.name, { useCaseFirst, useCaseDeep });
    }

    // HTTP, against the real server.
    // The server logs each request (pino, info, as by default); to a file here, not into the report on stdout.
    const serverLog = join(WORK, 'server.log');
    rmSync(serverLog, { force: true });
    server = await startServer(root, { port: 0, host: '127.0.0.1', logger: pino({ level: 'info', base: undefined }, pino.destination({ dest: serverLog, sync: true })) });
    client = new HttpClient((server.address() as AddressInfo).port);
    const http = client;
    const results = [];
    for (const c of cases) {
      const firstPath = `/api/history/runs?${new URLSearchParams(withPage(c.query)).toString()}`;
      const deepPath = c.deepCursor ? `/api/history/runs?${new URLSearchParams(withPage(c.query, c.deepCursor)).toString()}` : undefined;
      const body = JSON.parse(await http.getOk(firstPath)) as { items: unknown[] };
      if (body.items.length !== Math.min(PAGE_LIMIT, c.matches)) throw new Error(`${c.name}: HTTP first page has ${body.items.length} items`);
      const httpFirst = await measure(() => http.getOk(firstPath), ITERATIONS, WARMUP);
      const httpDeep = deepPath ? await measure(() => http.getOk(deepPath), ITERATIONS, WARMUP) : undefined;
      log(`HTTP ${c.name}: first p50 ${httpFirst.p50.toFixed(2)} ms${httpDeep ? `, deep p50 ${httpDeep.p50.toFixed(2)} ms` : ''}`);
      results.push({ ...c, sql: sqlOf(repo, c.filter), timings: { ...useCase.get(c.name)!, httpFirst, httpDeep } });
    }
    const auth = await measureAuth({ work: WORK, dbName, offConfigPath: configPath, iterations: positiveInt('BENCH_AUTH_ITERATIONS', 2000), warmup: WARMUP, log });

    // The other history lists and the workflows overview: use case and HTTP, while the server is up.
    const listResults: Array<ListCase & { timings: ListTimings }> = [];
    for (const c of listCases) {
      const timings = await timeListCase(c, listUseCases[c.spec.list]!, http, ITERATIONS, WARMUP);
      log(`${c.spec.list} ${c.name}: use case first p50 ${timings.useCaseFirst.p50.toFixed(2)} ms, HTTP first p50 ${timings.httpFirst.p50.toFixed(2)} ms` +
        `${timings.httpDeep ? `, HTTP deep p50 ${timings.httpDeep.p50.toFixed(2)} ms` : ''}`);
      listResults.push({ ...c, timings });
    }
    const workflows: WorkflowsFigures = await timeWorkflows(db, root.container.get(ListWorkflows), http, ITERATIONS, WARMUP);
    log(`workflows (${workflows.workflows}): use case p50 ${workflows.useCase.p50.toFixed(2)} ms, HTTP p50 ${workflows.http.p50.toFixed(2)} ms`);
    client.close();
    client = undefined;
    await new Promise<void>((res) => server!.close(() => res()));
    server = undefined;
    await root.close();
    root = undefined;

    // CLI cold: a fresh process each time (one warm-up run first, for the OS file cache).
    const cli = measureCliCold(REPO, configPath, PAGE_LIMIT);
    log(`CLI cold: p50 ${cli.p50.toFixed(0)} ms, max ${cli.max.toFixed(0)} ms (bare node start ${cli.nodeBaselineMs.toFixed(0)} ms)`);

    // Exports of every run, each in a child process of its own (the root is closed: no other reader).
    const exports: ExportFigures[] = [];
    for (const format of ['csv', 'json'] as const) {
      const e = await measureExport(format, REPO, WORK, configPath, log);
      log(`export ${format}: ${e.runs.toLocaleString('en-US')} runs in ${e.seconds.toFixed(1)} s, ${Math.round(e.runsPerSec).toLocaleString('en-US')} runs/s, ` +
        `peak RSS ${e.peakRssMb.toFixed(0)} MB, ${(e.bytes / 1048576).toFixed(0)} MB written`);
      exports.push(e);
    }

    const env = `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadAtStart.toFixed(2)} at start / ${loadavg()[0]!.toFixed(2)} at end (other processes share the machine)`;
    const ui = renderUi(await measureUi(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`, { samples: 20 }), runs);
    const spend = renderSpend(await benchSpend({
      work: WORK, entries: positiveInt('BENCH_SPEND_ENTRIES', 1_000_000), reuse: reuseAsked, iterations: ITERATIONS, warmup: WARMUP, log,
    }));
    const relayers = renderRelayers(await benchRelayers({ work: WORK, iterations: ITERATIONS, warmup: WARMUP, log }));
    const { text: historyText, pass: historyPass } = renderReport({ started, env, iterations: ITERATIONS, warmup: WARMUP, build: buildFigures, counts, cases: results, cli, plugins: cliPlugins(REPO),
      lists: { cases: listResults, workflows, exports, totalRuns: runs }, auth });
    const text = `${historyText}\n${ui.text}\n${spend.text}\n${relayers.text}`;
    const pass = historyPass && ui.pass && spend.pass && relayers.pass;
    writeFileSync(join(WORK, 'report.md'), text);
    process.stdout.write(text);
    log(`report saved to ${join(WORK, 'report.md')} (${((Date.now() - started.getTime()) / 1000).toFixed(0)} s in all)`);
    process.exitCode = pass ? 0 : 1;
  } finally {
    client?.close();
    if (server) await new Promise<void>((res) => server!.close(() => res()));
    if (root) await root.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 2;
});
