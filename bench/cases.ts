/**
 * The page cases: unfiltered and each run filter alone, with a realistic value that exists in the data; for
 * each, the number of matching runs, a cursor positioned deep into them, and the query plans (setup, untimed).
 */
import type { Knex } from 'knex';
import type { KnexRunRepository } from '../src/adapters/knex/knex-run.repository';
import { RUN_LIST_PARAMS, toRunFilter } from '../src/application/history/run-query';
import type { RunFilter } from '../src/application/ports/run-repository';
import { QueryParser } from '../src/application/query/query-params';
import type { CursorCodec } from '../src/domain/cursor';
import { DAY, PICKS, runId } from './generate';

export const PAGE_LIMIT = 50;
/** The deep page starts after half the matches, or after this many rows, whichever is smaller. */
export const MAX_DEEP = 200_000;

export interface CaseDef {
  readonly name: string;
  /** Raw query parameters, as the HTTP query string would carry them (without limit / cursor). */
  readonly query: Readonly<Record<string, string>>;
}

export interface PlanLine {
  readonly text: string;
  /** FULL SCAN, TEMP SORT, NO CURSOR SEEK (deep page walks from the filter bound), INDEX WALK (informational) or empty. */
  readonly flag: string;
}

export interface PreparedCase extends CaseDef {
  readonly filter: RunFilter;
  readonly matches: number;
  /** Rows skipped before the deep page; 0 when the matches are too few for a deep page. */
  readonly deepOffset: number;
  readonly deepCursor?: string;
  /** run_id the deep page must start with (checked against the use case's answer). */
  readonly deepFirstId?: string;
  readonly firstPlan: PlanLine[];
  readonly deepPlan: PlanLine[];
}

type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows);

/** The cases, with values picked from the data (tx hash, block, run id) or known to exist (PICKS). */
export async function defineCases(db: Knex, runs: number, newest: number): Promise<CaseDef[]> {
  const tx = rowsOf(await db.raw(`SELECT tx_hash FROM run_tx_hashes WHERE tx_hash >= '0x8' ORDER BY tx_hash LIMIT 1`))[0];
  const blocks = Number(rowsOf(await db.raw('SELECT count(*) AS n FROM runs WHERE block IS NOT NULL'))[0]!.n);
  const block = rowsOf(await db.raw('SELECT block FROM runs WHERE block IS NOT NULL ORDER BY block LIMIT 1 OFFSET ?', [Math.floor(blocks / 2)]))[0];
  // Durations when the journal ends about now (as after a build); fixed times otherwise (a reused journal).
  const fresh = Date.now() - newest < DAY;
  const back = (days: number): string => (fresh ? `${days}d` : new Date(newest - days * DAY).toISOString());
  const cases: CaseDef[] = [
    { name: 'unfiltered', query: {} },
    { name: 'workflow', query: { workflow: PICKS.workflow } },
    { name: 'status', query: { status: PICKS.status } },
    { name: 'trigger', query: { trigger: PICKS.trigger } },
    { name: 'network', query: { network: PICKS.network } },
    { name: 'contract', query: { contract: PICKS.contract } },
    { name: 'relayer', query: { relayer: PICKS.relayer } },
    ...(tx ? [{ name: 'tx_hash', query: { tx_hash: String(tx.tx_hash) } }] : []),
    ...(block ? [{ name: 'block', query: { block: String(block.block) } }] : []),
    { name: 'run_id', query: { run_id: runId(Math.floor(runs / 2)) } },
    { name: 'step_id', query: { step_id: PICKS.step_id } },
    { name: 'error_kind', query: { error_kind: PICKS.error_kind } },
    { name: 'approval_status', query: { approval_status: PICKS.approval_status } },
    { name: 'session', query: { session: PICKS.session } },
    { name: 'since', query: { since: back(7) } },
    { name: 'until', query: { until: back(30) } },
  ];
  return cases;
}

/** Counts the matches, positions the deep cursor (same ordering, OFFSET) and explains both pages. */
export async function prepareCase(def: CaseDef, db: Knex, repo: KnexRunRepository, codec: CursorCodec): Promise<PreparedCase> {
  const parser = new QueryParser(RUN_LIST_PARAMS, () => Date.now());
  const filter = toRunFilter(parser.parse(def.query));
  const counted = (await repo.listQuery(filter, { limit: 1 }).clearSelect().clearOrder().count({ n: '*' })) as Row[];
  const matches = Number(counted[0]?.n ?? 0);
  const deepOffset = matches >= 2 ? Math.min(Math.floor(matches / 2), MAX_DEEP) : 0;
  let deepCursor: string | undefined;
  let deepFirstId: string | undefined;
  let after: { createdAt: number; id: string } | undefined;
  if (deepOffset > 0) {
    // The page's own select may be packed (one JSON array per row on SQLite): read the position columns alone.
    const position = (offset: number): Knex.QueryBuilder =>
      repo.listQuery(filter, { limit: 1 }).clearSelect().select({ created_at: 'r.created_at', run_id: 'r.run_id' }).offset(offset);
    const [last] = (await position(deepOffset - 1)) as Row[];
    const [next] = (await position(deepOffset)) as Row[];
    after = { createdAt: Number(last!.created_at), id: String(last!.run_id) };
    deepCursor = codec.encode('runs', after);
    deepFirstId = next ? String(next.run_id) : undefined;
  }
  const firstPlan = await explain(db, repo.listQuery(filter, { limit: PAGE_LIMIT + 1 }), def.name);
  const deepPlan = after ? await explain(db, repo.listQuery(filter, { limit: PAGE_LIMIT + 1, after }), def.name) : [];
  // A deep page must seek to its cursor: the (created_at, run_id) bound has to be part of the index range.
  // (PostgreSQL: a row comparison in an Index Cond.)
  if (deepPlan.length && !deepPlan.some((l) => /\(created_at,run_id\)<\(\?,\?\)|Index Cond: .*ROW\(\w+\.?created_at, \w*\.?run_id\) </.test(l.text))) {
    deepPlan[0] = { ...deepPlan[0]!, flag: [deepPlan[0]!.flag, 'NO CURSOR SEEK'].filter(Boolean).join(', ') };
  }
  return { ...def, filter, matches, deepOffset, deepCursor, deepFirstId, firstPlan, deepPlan };
}

/** EXPLAIN QUERY PLAN of the query the repository runs, as indented lines with flags. */
export async function explain(db: Knex, q: Knex.QueryBuilder, caseName: string): Promise<PlanLine[]> {
  const { sql, bindings } = q.toSQL();
  if ((db.client as { dialect?: string }).dialect !== 'sqlite3') return explainPostgres(db, sql, bindings as Knex.RawBinding[]);
  const rows = rowsOf(await db.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as Knex.RawBinding[]));
  const depth = new Map<number, number>([[0, -1]]);
  return rows.map((r) => {
    const d = (depth.get(Number(r.parent)) ?? -1) + 1;
    depth.set(Number(r.id), d);
    const text = `${'  '.repeat(d)}${String(r.detail)}`;
    return { text, flag: planFlag(String(r.detail), caseName) };
  });
}

/**
 * PostgreSQL's plan (EXPLAIN, no ANALYZE) with the same flags: FULL SCAN for a sequential scan, TEMP SORT for a Sort
 * node. Whether a deep page seeks its cursor shows in its Index Cond (the row comparison), not flagged here.
 */
async function explainPostgres(db: Knex, sql: string, bindings: Knex.RawBinding[]): Promise<PlanLine[]> {
  const rows = rowsOf(await db.raw(`EXPLAIN ${sql}`, bindings));
  return rows.map((r) => {
    const text = String(r['QUERY PLAN']);
    return { text, flag: /Seq Scan/.test(text) ? 'FULL SCAN' : /(^|->\s+)(Incremental )?Sort\b/.test(text) ? 'TEMP SORT' : '' };
  });
}

function planFlag(detail: string, caseName: string): string {
  if (/USE TEMP B-TREE FOR ORDER BY/.test(detail)) return 'TEMP SORT';
  if (/^SCAN /.test(detail) && !/USING (COVERING )?INDEX|CONSTANT ROW/.test(detail)) return 'FULL SCAN';
  if (caseName !== 'unfiltered' && /^SCAN \S+ USING INDEX runs_page/.test(detail)) return 'INDEX WALK';
  return '';
}

/** The SQL the repository runs for a case (first page), for the report. */
export function sqlOf(repo: KnexRunRepository, filter: RunFilter): string {
  const { sql, bindings } = repo.listQuery(filter, { limit: PAGE_LIMIT + 1 }).toSQL();
  return `${sql}  -- ${JSON.stringify(bindings)}`;
}
