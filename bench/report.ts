/** The benchmark's report: markdown tables, the query plans, and PASS/FAIL per target. */
import { renderCliCold } from './cli';
import { renderAuth, type AuthFigures } from './auth';
import type { PreparedCase } from './cases';
import { renderLists, type ListsInput } from './report-lists';
import { fmt, type Stats } from './timing';

export const TARGETS = { importEventsPerSec: 50_000, httpP50Ms: 5 } as const;

export interface BuildFigures {
  readonly reused: boolean;
  readonly runs: number;
  readonly events: number;
  readonly lines: number;
  readonly seconds: number;
  readonly eventsPerSec: number;
  /** Generating the lines alone (no validation, no import), measured on the first chunk, lines/s. */
  readonly generatorLinesPerSec: number;
  readonly peakRssMb: number;
  readonly dbMb: number;
  readonly walMb: number;
}

export interface CaseTimings {
  readonly useCaseFirst: Stats;
  readonly useCaseDeep?: Stats;
  readonly httpFirst: Stats;
  readonly httpDeep?: Stats;
}

export interface CliFigures {
  readonly runs: number;
  readonly p50: number;
  readonly max: number;
  readonly samples: readonly number[];
  /** `node -e ''` with the same environment: the floor any Node CLI pays here. */
  readonly nodeBaselineMs: number;
}

export interface ReportInput {
  readonly started: Date;
  readonly env: string;
  readonly iterations: number;
  readonly warmup: number;
  readonly build: BuildFigures;
  readonly counts: Record<string, number>;
  readonly cases: ReadonlyArray<PreparedCase & { timings: CaseTimings; sql: string }>;
  readonly cli: CliFigures;
  /** The oclif plugins the CLI loaded (package.json). */
  readonly plugins: readonly string[];
  /** The other history lists, the workflows overview and the export (absent: not measured). */
  readonly lists?: ListsInput;
  /** Authentication overhead (absent: not measured). */
  readonly auth?: AuthFigures;
}

const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const pair = (s: Stats | undefined): string => (s ? `${fmt(s.p50)} / ${fmt(s.p99)}` : '—');
const valueOf = (q: Readonly<Record<string, string>>): string => {
  const v = Object.values(q)[0];
  return v === undefined ? '' : v.length > 24 ? `${v.slice(0, 12)}…${v.slice(-6)}` : v;
};

export function renderReport(r: ReportInput): { text: string; pass: boolean } {
  const out: string[] = [];
  const b = r.build;
  out.push(`# chainflow benchmark — ${n(b.runs)} runs`, '');
  out.push(`${r.started.toISOString()} · ${r.env}`, '');
  out.push('## Journal build (`chainflow journal import FILE` path: ImportJournal over NDJSON files of 50,000 runs, SQLite)', '', 'Time is the import alone; each chunk file is generated before its import, untimed.', '');
  out.push('| runs | events | time (s) | events/s | generator alone (lines/s) | peak RSS (MB) | db + wal (MB) |', '|---:|---:|---:|---:|---:|---:|---:|');
  out.push(b.reused
    ? `| ${n(b.runs)} | ${n(b.events)} | reused | — | — | ${n(b.peakRssMb)} | ${n(b.dbMb)} + ${n(b.walMb)} |`
    : `| ${n(b.runs)} | ${n(b.events)} | ${b.seconds.toFixed(1)} | **${n(b.eventsPerSec)}** | ${n(b.generatorLinesPerSec)} | ${n(b.peakRssMb)} | ${n(b.dbMb)} + ${n(b.walMb)} |`);
  out.push('', `Rows: ${Object.entries(r.counts).map(([k, v]) => `${k} ${n(v)}`).join(', ')}`, '');

  out.push(`## Runs pages (limit 50): p50 / p99 in ms, ${r.iterations} iterations after ${r.warmup} warm-up`, '');
  out.push('Deep page: a cursor after min(50% of matches, 200,000) rows. HTTP: GET /api/history/runs, one keep-alive connection, sequential.', '');
  out.push('| case | value | matches | deep after | use case first | use case deep | HTTP first | HTTP deep | plan |', '|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const c of r.cases) {
    const flags = [...new Set([...c.firstPlan, ...c.deepPlan].map((l) => l.flag).filter(Boolean))].join(', ') || 'ok';
    out.push(`| ${c.name} | ${valueOf(c.query)} | ${n(c.matches)} | ${c.deepOffset ? n(c.deepOffset) : '—'} | ${pair(c.timings.useCaseFirst)} | ${pair(c.timings.useCaseDeep)} | ${pair(c.timings.httpFirst)} | ${pair(c.timings.httpDeep)} | ${flags} |`);
  }
  out.push('', '## Query plans (EXPLAIN QUERY PLAN of KnexRunRepository.listQuery, no ANALYZE)', '');
  for (const c of r.cases) {
    out.push(`### ${c.name}${Object.keys(c.query).length ? ` = ${Object.values(c.query)[0]}` : ''}`, '', '```', `-- ${c.sql}`, '-- first page');
    for (const l of c.firstPlan) out.push(`${l.text}${l.flag ? `   <-- ${l.flag}` : ''}`);
    if (c.deepPlan.length) {
      out.push('-- deep page');
      for (const l of c.deepPlan) out.push(`${l.text}${l.flag ? `   <-- ${l.flag}` : ''}`);
    }
    out.push('```', '');
  }
  const cli = renderCliCold(r.cli, r.plugins);
  out.push(...cli.lines);
  const lists = r.lists ? renderLists(r.lists) : undefined;
  if (lists) out.push(...lists.lines);
  const auth = r.auth ? renderAuth(r.auth) : undefined;
  if (auth) out.push(...auth.lines);

  // Verdicts.
  const verdicts: Array<[boolean | undefined, string]> = [];
  verdicts.push([b.reused ? undefined : b.eventsPerSec >= TARGETS.importEventsPerSec,
    `import: ${b.reused ? 'not measured (--reuse)' : `${n(b.eventsPerSec)} events/s`} (target >= ${n(TARGETS.importEventsPerSec)})`]);
  for (const c of r.cases) {
    verdicts.push([c.timings.httpFirst.p50 <= TARGETS.httpP50Ms, `HTTP ${c.name} first page p50 ${fmt(c.timings.httpFirst.p50)} ms (target <= ${TARGETS.httpP50Ms})`]);
    if (c.timings.httpDeep) verdicts.push([c.timings.httpDeep.p50 <= TARGETS.httpP50Ms, `HTTP ${c.name} deep page p50 ${fmt(c.timings.httpDeep.p50)} ms (target <= ${TARGETS.httpP50Ms})`]);
  }
  const plans = r.cases.flatMap((c) => [...c.firstPlan, ...c.deepPlan].map((l) => ({ c: c.name, l })));
  const full = plans.filter((p) => p.l.flag === 'FULL SCAN');
  const temp = plans.filter((p) => p.l.flag === 'TEMP SORT');
  verdicts.push([full.length === 0, `plans: no full scan${full.length ? ` (full scan in: ${[...new Set(full.map((p) => p.c))].join(', ')})` : ''}`]);
  verdicts.push([temp.length === 0, `plans: no temp B-tree sort${temp.length ? ` (in: ${[...new Set(temp.map((p) => p.c))].join(', ')})` : ''}`]);
  const noSeek = r.cases.filter((c) => c.deepPlan.some((l) => l.flag.includes('NO CURSOR SEEK'))).map((c) => c.name);
  verdicts.push([noSeek.length === 0, `plans: every deep page seeks to its cursor${noSeek.length ? ` (not in: ${noSeek.join(', ')})` : ''}`]);
  verdicts.push([cli.pass, cli.verdict]);
  if (lists) verdicts.push(...lists.verdicts);
  if (auth) verdicts.push(...auth.verdicts);
  out.push('## Targets', '');
  for (const [ok, text] of verdicts) out.push(`- ${ok === undefined ? 'SKIP' : ok ? 'PASS' : 'FAIL'} ${text}`);
  const pass = verdicts.every(([ok]) => ok !== false);
  out.push('', `**${pass ? 'PASS' : 'FAIL'}**: ${verdicts.filter(([ok]) => ok === false).length} of ${verdicts.length} figures miss their target.`);
  return { text: `${out.join('\n')}\n`, pass };
}
