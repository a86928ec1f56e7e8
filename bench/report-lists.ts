/** Report sections of the other history lists, the workflows overview and the export, with their verdicts. */
import type { ExportFigures } from './export';
import type { ListCase, ListTimings, WorkflowsFigures } from './lists';
import { fmt, type Stats } from './timing';

export const LIST_TARGETS = { httpP50Ms: 5, workflowsP50Ms: 50, exportPeakRssMb: 150, exportRunsPerSec: 50_000 } as const;

export interface ListsInput {
  readonly cases: ReadonlyArray<ListCase & { timings: ListTimings }>;
  readonly workflows: WorkflowsFigures;
  readonly exports: readonly ExportFigures[];
  readonly totalRuns: number;
}

export type Verdict = [boolean | undefined, string];

const n = (x: number): string => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '—');
const pair = (s: Stats | undefined): string => (s ? `${fmt(s.p50)} / ${fmt(s.p99)}` : '—');
const short = (v: string | undefined): string => (v === undefined ? '' : v.length > 24 ? `${v.slice(0, 12)}…${v.slice(-6)}` : v);
const flagsOf = (c: ListCase): string => [...new Set([...c.firstPlan, ...c.deepPlan].map((l) => l.flag).filter(Boolean))].join(', ') || 'ok';

export function renderLists(r: ListsInput): { lines: string[]; verdicts: Verdict[] } {
  const out: string[] = [];
  const empty = [...new Set(r.cases.filter((c) => c.listRows === 0).map((c) => c.spec.list))];
  out.push('## Other history lists (limit 50): p50 / p99 in ms', '');
  out.push('Same method as the runs pages: deep page after min(50% of matches, 200,000) rows; HTTP: GET /api/history/<list>, one keep-alive connection, sequential.', '');
  if (empty.length) out.push(`**Empty in the bench data:** ${empty.map((l) => `/${l}`).join(', ')} (no rows: only an empty first page is timed, no verdict).`, '');
  out.push('| list | case | value | matches | deep after | use case first | use case deep | HTTP first | HTTP deep | plan |', '|---|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const c of r.cases) {
    out.push(`| ${c.spec.list} | ${c.name} | ${short(Object.values(c.query)[0])} | ${n(c.matches)} | ${c.deepOffset ? n(c.deepOffset) : '—'} | ${pair(c.timings.useCaseFirst)} | ${pair(c.timings.useCaseDeep)} | ${pair(c.timings.httpFirst)} | ${pair(c.timings.httpDeep)} | ${flagsOf(c)} |`);
  }
  out.push('', '## Other history lists: query plans (EXPLAIN QUERY PLAN of KnexHistoryRepository.pageQuery, no ANALYZE)', '');
  out.push('INDEX WALK: an equality filter is not part of the index range (rows are read along the time index and tested). NO CURSOR SEEK: the deep page does not seek to its (time, id) bound.', '');
  for (const c of r.cases) {
    out.push(`### ${c.spec.list} ${c.name}${Object.keys(c.query).length ? ` = ${Object.values(c.query)[0]}` : ''}`, '', '```', `-- ${c.sql}`, '-- first page');
    for (const l of c.firstPlan) out.push(`${l.text}${l.flag ? `   <-- ${l.flag}` : ''}`);
    if (c.deepPlan.length) {
      out.push('-- deep page');
      for (const l of c.deepPlan) out.push(`${l.text}${l.flag ? `   <-- ${l.flag}` : ''}`);
    }
    out.push('```', '');
  }

  const w = r.workflows;
  out.push('## Workflows overview: GET /api/history/workflows and ListWorkflows (default limit), ms', '');
  out.push('| workflows | use case p50 / p99 | HTTP p50 / p99 |', '|---:|---:|---:|');
  out.push(`| ${w.workflows} | ${pair(w.useCase)} | ${pair(w.http)} |`, '');
  out.push('Plan of its waiting-runs count per workflow (the only query that reads runs):', '', '```');
  for (const l of w.waitingPlan) out.push(`${l.text}${l.flag ? `   <-- ${l.flag}` : ''}`);
  out.push('```', '');

  out.push('## Export of every run: `node bin/run.js history export --format F --out .bench/export.F --config .bench/chainflow.yaml`', '');
  out.push('A child process each; wall time measured by the parent (node start and DB open included), peak RSS by `/usr/bin/time -f %M`. The file is deleted afterwards.', '');
  out.push('| format | runs | time (s) | runs/s | peak RSS (MB) | output (MB) | bytes/run | command said |', '|---|---:|---:|---:|---:|---:|---:|---|');
  for (const e of r.exports) {
    out.push(`| ${e.format} | ${n(e.runs)} | ${e.seconds.toFixed(1)} | **${n(e.runsPerSec)}** | ${Number.isFinite(e.peakRssMb) ? n(e.peakRssMb) : '—'} | ${n(e.bytes / 1048576)} | ${n(e.bytes / (e.runs || 1))} | ${e.summary.replace(/\|/g, '\\|')} |`);
  }
  out.push('');

  const verdicts: Verdict[] = [];
  for (const c of r.cases) {
    const label = `HTTP /${c.spec.list} ${c.name}`;
    if (c.listRows === 0) {
      verdicts.push([undefined, `${label}: /${c.spec.list} is empty in the bench data (first page p50 ${fmt(c.timings.httpFirst.p50)} ms on no rows)`]);
      continue;
    }
    verdicts.push([c.timings.httpFirst.p50 <= LIST_TARGETS.httpP50Ms, `${label} first page p50 ${fmt(c.timings.httpFirst.p50)} ms (target <= ${LIST_TARGETS.httpP50Ms}${c.matches ? '' : '; no match'})`]);
    if (c.timings.httpDeep) verdicts.push([c.timings.httpDeep.p50 <= LIST_TARGETS.httpP50Ms, `${label} deep page p50 ${fmt(c.timings.httpDeep.p50)} ms (target <= ${LIST_TARGETS.httpP50Ms})`]);
  }
  const lines = r.cases.flatMap((c) => [...c.firstPlan, ...c.deepPlan].map((l) => ({ c: `${c.spec.list} ${c.name}`, l })));
  const where = (flag: string): string[] => [...new Set(lines.filter((p) => p.l.flag.includes(flag)).map((p) => p.c))];
  const full = where('FULL SCAN');
  const temp = where('TEMP SORT');
  const noSeek = where('NO CURSOR SEEK');
  verdicts.push([full.length === 0, `list plans: no full scan${full.length ? ` (full scan in: ${full.join(', ')})` : ''}`]);
  verdicts.push([temp.length === 0, `list plans: no temp B-tree sort${temp.length ? ` (in: ${temp.join(', ')})` : ''}`]);
  verdicts.push([noSeek.length === 0, `list plans: every deep page seeks to its cursor${noSeek.length ? ` (not in: ${noSeek.join(', ')})` : ''}`]);
  verdicts.push([w.http.p50 <= LIST_TARGETS.workflowsP50Ms, `HTTP /workflows p50 ${fmt(w.http.p50)} ms, use case ${fmt(w.useCase.p50)} ms (target <= ${LIST_TARGETS.workflowsP50Ms})`]);
  for (const e of r.exports) {
    const complete = e.runs === r.totalRuns;
    verdicts.push([complete, `export ${e.format}: ${n(e.runs)} of ${n(r.totalRuns)} runs written`]);
    verdicts.push([Number.isFinite(e.peakRssMb) ? e.peakRssMb <= LIST_TARGETS.exportPeakRssMb : undefined,
      `export ${e.format}: peak RSS ${Number.isFinite(e.peakRssMb) ? `${n(e.peakRssMb)} MB` : 'not measured (no GNU time)'} for ${n(e.bytes / 1048576)} MB written (target <= ${LIST_TARGETS.exportPeakRssMb}, streamed)`]);
    verdicts.push([e.runsPerSec >= LIST_TARGETS.exportRunsPerSec, `export ${e.format}: ${n(e.runsPerSec)} runs/s, ${e.seconds.toFixed(1)} s (target >= ${n(LIST_TARGETS.exportRunsPerSec)})`]);
  }
  return { lines: out, verdicts };
}
