/**
 * The other history lists (txs, approvals, waiting, reorgs, replays): for each, unfiltered and each filter alone
 * with a value that exists in the data; matches, a deep cursor, the query plans (setup, untimed), then the
 * first and deep pages timed at the use-case level and over HTTP. Also the workflows overview.
 */
import type { Knex } from 'knex';
import { HISTORY_LISTS, type KnexHistoryRepository } from '../src/adapters/knex/knex-history.repository';
import { APPROVAL_FILTERS, REORG_FILTERS, REPLAY_FILTERS, SEND_FILTERS, WAITING_FILTERS } from '../src/application/history/history-lists';
import { listParams, toListFilter } from '../src/application/history/keyset-list';
import type { ListFilter } from '../src/application/ports/history-repository';
import { QueryParser, type ParamSpecs } from '../src/application/query/query-params';
import type { CursorCodec } from '../src/domain/cursor';
import { MAX_DEEP, PAGE_LIMIT, explain, type PlanLine } from './cases';
import type { HttpClient, Stats } from './timing';
import { measure } from './timing';

type Row = Record<string, unknown>;
type Query = Readonly<Record<string, string>>;
type ListTable = (typeof HISTORY_LISTS)[keyof typeof HISTORY_LISTS];
interface Page { items: Row[]; cursor: string | null }
/** What the benchmark needs of a list use case (ListSends, ListApprovals, ...). */
export interface PagedUseCase { execute(query: Query): Promise<unknown> }

export interface ListSpec {
  /** The list's cursor name, also its HTTP path: /api/history/<list>. */
  readonly list: 'txs' | 'approvals' | 'waiting' | 'reorgs' | 'replays';
  readonly table: ListTable;
  readonly filters: ParamSpecs;
  readonly timeField: string;
  /** Item field holding the row id (what the deep page must start with). */
  readonly idField: string;
}

export const LIST_SPECS: readonly ListSpec[] = [
  { list: 'txs', table: HISTORY_LISTS.SENDS, filters: SEND_FILTERS, timeField: 'created_at', idField: 'send_id' },
  { list: 'approvals', table: HISTORY_LISTS.APPROVALS, filters: APPROVAL_FILTERS, timeField: 'requested_at', idField: 'approval_id' },
  { list: 'waiting', table: HISTORY_LISTS.WAITING, filters: WAITING_FILTERS, timeField: 'parked_at', idField: 'run_id' },
  { list: 'reorgs', table: HISTORY_LISTS.REORGS, filters: REORG_FILTERS, timeField: 'created_at', idField: 'reorg_id' },
  { list: 'replays', table: HISTORY_LISTS.SESSIONS, filters: REPLAY_FILTERS, timeField: 'created_at', idField: 'session_id' },
];

export interface ListCase {
  readonly spec: ListSpec;
  /** The filter name, or 'unfiltered'. */
  readonly name: string;
  readonly query: Query;
  readonly filter: ListFilter;
  /** Rows of the whole list (unfiltered), to tell an empty list from a filter without matches. */
  readonly listRows: number;
  readonly matches: number;
  readonly deepOffset: number;
  readonly deepCursor?: string;
  readonly deepFirstId?: string;
  readonly firstPlan: PlanLine[];
  readonly deepPlan: PlanLine[];
  readonly sql: string;
}

export interface ListTimings {
  readonly useCaseFirst: Stats;
  readonly useCaseDeep?: Stats;
  readonly httpFirst: Stats;
  readonly httpDeep?: Stats;
}

const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows);
const one = async (db: Knex, sql: string, bindings: Knex.RawBinding[] = []): Promise<Row | undefined> => rowsOf(await db.raw(sql, bindings))[0];
const iso = (ms: number): string => new Date(ms).toISOString();
const DAY = 86_400_000;

/** Filter values known to exist in the generated data (see generate.ts), or picked from it. */
export async function defineListCases(db: Knex): Promise<Array<{ spec: ListSpec; name: string; query: Query }>> {
  const spec = (list: ListSpec['list']): ListSpec => LIST_SPECS.find((s) => s.list === list)!;
  // A send from the middle of the table. SQLite by rowid (its insertion order); PostgreSQL has none, and a copy of the
  // same journal holds the same sends: the same send by the order of the copy's rows is not promised, so by id.
  const sqlite = (db.client as { dialect?: string }).dialect === 'sqlite3';
  const half = Math.floor(Number((await one(db, sqlite ? 'SELECT max(rowid) AS n FROM sends' : 'SELECT count(*) AS n FROM sends'))?.n ?? 0) / 2);
  const send = await one(db, sqlite
    ? 'SELECT run_id, tx_hash FROM sends WHERE rowid >= ? AND tx_hash IS NOT NULL ORDER BY rowid LIMIT 1'
    : 'SELECT run_id, tx_hash FROM sends WHERE tx_hash IS NOT NULL ORDER BY send_id LIMIT 1 OFFSET ?', [half]);
  const newestSend = Number((await one(db, 'SELECT max(created_at) AS t FROM sends'))?.t ?? Date.now());
  const txs = spec('txs');
  const cases: Array<{ spec: ListSpec; name: string; query: Query }> = [];
  const add = (s: ListSpec, name: string, query: Query): void => void cases.push({ spec: s, name, query });
  add(txs, 'unfiltered', {});
  add(txs, 'workflow', { workflow: 'payouts' });
  add(txs, 'network', { network: 'base' });
  add(txs, 'relayer', { relayer: 'keeper-arb' });
  add(txs, 'status', { status: 'submitted' });
  add(txs, 'outcome', { outcome: 'reverted' });
  add(txs, 'session', { session: 'replay' });
  if (send) add(txs, 'run_id', { run_id: String(send.run_id) });
  if (send) add(txs, 'tx_hash', { tx_hash: String(send.tx_hash) });
  add(txs, 'since', { since: iso(newestSend - 7 * DAY) });
  add(txs, 'until', { until: iso(newestSend - 30 * DAY) });
  add(spec('approvals'), 'unfiltered', {});
  add(spec('approvals'), 'workflow', { workflow: 'treasury-sweep' });
  add(spec('approvals'), 'status', { status: 'rejected' });
  add(spec('waiting'), 'unfiltered', {});
  add(spec('waiting'), 'workflow', { workflow: 'rebalancer' });
  add(spec('waiting'), 'wait_kind', { wait_kind: 'delay' });
  add(spec('reorgs'), 'unfiltered', {});
  add(spec('reorgs'), 'workflow', { workflow: 'liquidation-guard' });
  add(spec('reorgs'), 'network', { network: 'arbitrum' });
  add(spec('replays'), 'unfiltered', {});
  add(spec('replays'), 'workflow', { workflow: 'payouts' });
  add(spec('replays'), 'kind', { kind: 'replay' });
  return cases;
}

/** Counts the matches, positions the deep cursor (same ordering, OFFSET) and explains both pages. */
export async function prepareListCase(
  def: { spec: ListSpec; name: string; query: Query }, db: Knex, repo: KnexHistoryRepository, codec: CursorCodec, listRows: Map<string, number>,
): Promise<ListCase> {
  const { spec } = def;
  const t = spec.table;
  const filters = spec.filters;
  const filter = toListFilter(new QueryParser(listParams(filters, spec.timeField), () => Date.now()).parse(def.query), filters);
  const count = async (f: ListFilter): Promise<number> =>
    Number(((await repo.pageQuery(t, f, { limit: 1 }).clearSelect().clearOrder().count({ n: '*' })) as Row[])[0]?.n ?? 0);
  if (!listRows.has(spec.list)) listRows.set(spec.list, await count({ equals: {} }));
  const matches = await count(filter);
  const deepOffset = matches >= 2 ? Math.min(Math.floor(matches / 2), MAX_DEEP) : 0;
  const position = (offset: number): Knex.QueryBuilder =>
    repo.pageQuery(t, filter, { limit: 1 }).clearSelect().select({ time: t.time, id: t.id }).offset(offset);
  let after: { createdAt: number; id: string } | undefined;
  let deepCursor: string | undefined;
  let deepFirstId: string | undefined;
  if (deepOffset > 0) {
    const [last] = (await position(deepOffset - 1)) as Row[];
    const [next] = (await position(deepOffset)) as Row[];
    after = { createdAt: Number(last!.time), id: String(last!.id) };
    deepCursor = codec.encode(spec.list, after);
    deepFirstId = next ? String(next.id) : undefined;
  }
  const label = `${spec.list} ${def.name}`;
  const firstPlan = flagPlan(await explain(db, repo.pageQuery(t, filter, { limit: PAGE_LIMIT + 1 }), label), filter, t, false);
  const deepPlan = after ? flagPlan(await explain(db, repo.pageQuery(t, filter, { limit: PAGE_LIMIT + 1, after }), label), filter, t, true) : [];
  const { sql, bindings } = repo.pageQuery(t, filter, { limit: PAGE_LIMIT + 1 }).toSQL();
  return {
    ...def, filter, listRows: listRows.get(spec.list)!, matches, deepOffset, deepCursor, deepFirstId, firstPlan, deepPlan,
    sql: `${sql}  -- ${JSON.stringify(bindings)}`,
  };
}

/**
 * Adds to explain()'s FULL SCAN / TEMP SORT: NO CURSOR SEEK when a deep page's (time, id) bound is not part of the
 * index range, and INDEX WALK (informational) when an equality filter is not part of it (rows are then read
 * along the time index and tested one by one).
 */
function flagPlan(plan: PlanLine[], filter: ListFilter, t: ListTable, deep: boolean): PlanLine[] {
  const add = (l: PlanLine, flag: string): PlanLine => ({ ...l, flag: [l.flag, flag].filter(Boolean).join(', ') });
  const access = plan.findIndex((l) => new RegExp(`^\\s*(SCAN|SEARCH) ${t.table}\\b`).test(l.text));
  if (access < 0) return plan;
  const out = plan.slice();
  for (const column of Object.keys(filter.equals)) {
    if (!out[access]!.text.includes(`${column}=?`)) out[access] = add(out[access]!, 'INDEX WALK');
  }
  if (deep && !out.some((l) => l.text.includes(`(${t.time},${t.id})<(?,?)`))) out[access] = add(out[access]!, 'NO CURSOR SEEK');
  return out;
}

const withPage = (q: Query, cursor?: string): Record<string, string> => ({ ...q, limit: String(PAGE_LIMIT), ...(cursor ? { cursor } : {}) });

/** Times one case: use case first / deep, then GET /api/history/<list> first / deep; checks the pages first. */
export async function timeListCase(c: ListCase, useCase: PagedUseCase, http: HttpClient, iterations: number, warmup: number): Promise<ListTimings> {
  const label = `${c.spec.list} ${c.name}`;
  const expect = Math.min(PAGE_LIMIT, c.matches);
  const first = (await useCase.execute(withPage(c.query))) as Page;
  if (first.items.length !== expect) throw new Error(`${label}: first page has ${first.items.length} items, expected ${expect}`);
  if (c.deepCursor) {
    const deep = (await useCase.execute(withPage(c.query, c.deepCursor))) as Page;
    const got = deep.items[0]?.[c.spec.idField];
    if (got !== c.deepFirstId) throw new Error(`${label}: deep page starts at ${String(got)}, expected ${c.deepFirstId}`);
  }
  const firstPath = `/api/history/${c.spec.list}?${new URLSearchParams(withPage(c.query)).toString()}`;
  const deepPath = c.deepCursor ? `/api/history/${c.spec.list}?${new URLSearchParams(withPage(c.query, c.deepCursor)).toString()}` : undefined;
  const body = JSON.parse(await http.getOk(firstPath)) as Page;
  if (body.items.length !== expect) throw new Error(`${label}: HTTP first page has ${body.items.length} items, expected ${expect}`);
  const useCaseFirst = await measure(() => useCase.execute(withPage(c.query)), iterations, warmup);
  const useCaseDeep = c.deepCursor ? await measure(() => useCase.execute(withPage(c.query, c.deepCursor)), iterations, warmup) : undefined;
  const httpFirst = await measure(() => http.getOk(firstPath), iterations, warmup);
  const httpDeep = deepPath ? await measure(() => http.getOk(deepPath), iterations, warmup) : undefined;
  return { useCaseFirst, useCaseDeep, httpFirst, httpDeep };
}

export interface WorkflowsFigures {
  readonly workflows: number;
  readonly useCase: Stats;
  readonly http: Stats;
  /** EXPLAIN of the per-workflow waiting count, the one query of the overview that reads runs. */
  readonly waitingPlan: PlanLine[];
}

/** GET /api/history/workflows (first page, default limit) and ListWorkflows. */
export async function timeWorkflows(db: Knex, useCase: PagedUseCase, http: HttpClient, iterations: number, warmup: number): Promise<WorkflowsFigures> {
  const page = (await useCase.execute({})) as Page;
  const body = JSON.parse(await http.getOk('/api/history/workflows')) as Page;
  if (body.items.length !== page.items.length) throw new Error(`workflows: HTTP answered ${body.items.length} rows, the use case ${page.items.length}`);
  const names = page.items.map((r) => String(r.workflow));
  const waitingPlan = await explain(db, db('runs').select('workflow').count({ n: '*' }).whereRaw(HISTORY_LISTS.WAITING.where!)
    .whereIn('workflow', names.length ? names : ['-']).groupBy('workflow'), 'workflows');
  const useCaseStats = await measure(() => useCase.execute({}), iterations, warmup);
  const httpStats = await measure(() => http.getOk('/api/history/workflows'), iterations, warmup);
  return { workflows: page.items.length, useCase: useCaseStats, http: httpStats, waitingPlan };
}
