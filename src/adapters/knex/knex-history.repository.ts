import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import { dialectOf } from './dialect';
import type { Approval } from '../../domain/approval';
import type { ReorgResponseRecord } from '../../domain/reorg';
import type { Run } from '../../domain/run';
import type { SendAttempt } from '../../domain/send-attempt';
import type { ReplaySession } from '../../domain/session';
import type { ExplorerTxLinks, HistoryRepository, ListFilter, WorkflowOverview } from '../../application/ports/history-repository';
import type { ItemText, PageRequest } from '../../application/ports/run-repository';
import { toApprovalItem, toReplaySessionItem, toSendAttemptItem, toWaitingItem } from '../../application/history/items';
import { chunks, MAX_ROWS, selectIn, selectInPacked } from './bulk';
import { eachLine, fieldOf, filterOnce, keysetOrder, newestFirst, plannedOnce, QueryShape, readersOf, readRows, ShapedSql, type ListReaders } from './list-reads';
import { Database } from './knex-journal.writer';
import {
  APPROVAL_COLUMNS, HistogramCache, REORG_COLUMNS, RUN_COLUMNS, SEND_COLUMNS, SESSION_COLUMNS, packedColumns, rowToApproval, rowToReorg, rowToRun,
  rowToSend, rowToSession, rowToWorkflow, rowToWorkflowStats, unpackRow, unpackValues,
} from './rows';
import { approvalItemText, jsonString, sendItemOfStored, sessionItemText, sessionLineSql, waitingItemHead, waitingItemText } from './item-sql';
import { pageText, statementReadersOf } from './statement-readers';
import { isPathSafe } from '../../domain/explorer';
import { ALL_STATES, ALL_STATS, ALL_WAITING, allWorkflowsOnPostgres, WAITING_IN_NAMES, type AllRows } from './workflow-overview-sql';

/** API field names that are stored under another column name. */
const COLUMN: Readonly<Record<string, string>> = { to: 'to_address' };

interface ListTable {
  readonly table: string;
  readonly columns: readonly string[];
  readonly time: string;
  readonly id: string;
  /** A fixed condition, written literally so that SQLite can use the partial indexes made for it. */
  readonly where?: string;
}

const SENDS: ListTable = { table: 'sends', columns: SEND_COLUMNS, time: 'created_at', id: 'send_id' };
const APPROVALS: ListTable = { table: 'approvals', columns: APPROVAL_COLUMNS, time: 'requested_at', id: 'approval_id' };
const WAITING: ListTable = { table: 'runs', columns: RUN_COLUMNS, time: 'parked_at', id: 'run_id', where: "status = 'waiting'" };
const REORGS: ListTable = { table: 'reorgs', columns: REORG_COLUMNS, time: 'created_at', id: 'reorg_id' };
const SESSIONS: ListTable = { table: 'sessions', columns: SESSION_COLUMNS, time: 'created_at', id: 'session_id' };

/**
 * A line of `listSendItems`' page: the send's stored item (SQLite's since migration 0010: its two pieces, already
 * tab-separated), then what the explorer link and the times are made of, and its id, tab-separated (JSON text holds
 * no raw tab or newline). Eight fields, cut by `sendItemsOfText`. PostgreSQL keeps the whole line (migration 0027).
 */
const SEND_LINE = 'concat(sends.item, char(9), json_quote(sends.network), char(9), sends.chain_id, char(9), json_quote(sends.tx_hash), ' +
  'char(9), sends.created_at, char(9), sends.updated_at, char(9), sends.send_id) AS line';
/** The page lines of each list on each store: the same text, joined by each. */
const SEND_LINES = {
  sqlite: SEND_LINE,
  postgres: 'sends.line AS line',
};
/** Runs whose sends one statement of `sendItemsOfRuns` renders: an export's page of runs is read in a few, side by side. */
const SEND_ITEMS_CHUNK = 100;

/**
 * A line of `listApprovalItems`' page: the approval's stored item (migration 0012 on SQLite: its two pieces, already
 * tab-separated), then its times and its id, tab-separated. Six fields. PostgreSQL keeps the whole line (0027).
 */
const APPROVAL_LINES = {
  sqlite: 'concat(approvals.item, char(9), approvals.requested_at, char(9), approvals.expires_at, char(9), approvals.decided_at, ' +
    'char(9), approvals.approval_id) AS line',
  postgres: 'approvals.line AS line',
};

/** A line of `listWaitingItems`' page: the head of the waiting run's item, then its times and id, tab-separated. */
const WAITING_LINES = {
  sqlite: `concat(${waitingItemHead('runs')}, char(9), runs.parked_at, char(9), runs.due_at, char(9), runs.expires_at, char(9), runs.run_id) AS line`,
  postgres: `concat(${waitingItemHead('runs', 'postgres')}, chr(9), runs.parked_at, chr(9), runs.due_at, chr(9), runs.expires_at, chr(9), runs.run_id) AS line`,
};

/** A line of `listSessionItems`' page (sessionLineSql): rendered in the query on both stores (the sessions are few, their rows narrow). */
const SESSION_LINES = {
  sqlite: `${sessionLineSql('sessions', 'sqlite')} AS line`,
  postgres: `${sessionLineSql('sessions', 'postgres')} AS line`,
};

/** Keyset pages over the projections; every filter is an index range on (filter, time, id) (migration 0002). */
/** Workflows seen at most for the overview to read every workflow's rows in one round (see listAllWorkflows). */
const ONE_ROUND_WORKFLOWS = 200;

type Row = Record<string, unknown>;
interface WaitingCount { workflow: string; n: number | string }

/** The overview's page of workflow names: the configured ones and those the journal has seen, by name, after `afterName`. */
function pageOfNames(known: readonly string[], seen: Iterable<string>, limit: number, afterName?: string): string[] {
  return [...new Set([...known, ...seen])].filter((n) => afterName === undefined || n > afterName).sort().slice(0, limit);
}

@injectable()
export class KnexHistoryRepository implements HistoryRepository {
  private readonly shapes = new ShapedSql();
  private readonly histograms = new HistogramCache();
  /** Workflows the journal had seen at the last overview (see listAllWorkflows). */
  private workflowsSeen = 0;

  constructor(@inject(Database) private readonly db: Knex) {}

  async listSends(filter: ListFilter, page: PageRequest): Promise<SendAttempt[]> {
    return (await this.page(SENDS, filter, page)).map(rowToSend);
  }

  /**
   * On a SQLite file the page comes as one text, a line per send, its item's pieces rendered by SQLite: the sends
   * never become objects in JavaScript (as KnexRunRepository.listItems). Elsewhere, `listSends` rendered by
   * `toSendAttemptItem`.
   */
  async listSendItems(filter: ListFilter, page: PageRequest, explorer: ExplorerTxLinks): Promise<ItemText[]> {
    const text = pageText(this.db, this.shapes, this.shapeOf('send items', filter, page), (line) => this.pageQuery(SENDS, filter, page, [line]), SEND_LINES);
    if (text === undefined) {
      return (await this.listSends(filter, page)).map((send) => ({
        position: { createdAt: send.createdAt, id: send.sendId }, json: JSON.stringify(toSendAttemptItem(send, (n, c, h) => explorer.tx(n, c, h))),
      }));
    }
    return newestFirst(sendItemsOfText(await text, explorer));
  }

  async listApprovals(filter: ListFilter, page: PageRequest): Promise<Approval[]> {
    return (await this.page(APPROVALS, filter, page)).map(rowToApproval);
  }

  /** As listSendItems, for the approvals. */
  async listApprovalItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]> {
    const text = pageText(this.db, this.shapes, this.shapeOf('approval items', filter, page), (line) => this.pageQuery(APPROVALS, filter, page, [line]), APPROVAL_LINES);
    if (text === undefined) {
      return (await this.listApprovals(filter, page)).map((a) => ({
        position: { createdAt: a.requestedAt, id: a.approvalId }, json: JSON.stringify(toApprovalItem(a)),
      }));
    }
    const items: ItemText[] = [];
    eachLine(await text, 6, (line, at) => {
      const requested = Number(fieldOf(line, at, 2));
      items.push({
        position: { createdAt: requested, id: fieldOf(line, at, 5) },
        json: approvalItemText(fieldOf(line, at, 0), requested, timeOf(line, at, 3), timeOf(line, at, 4), fieldOf(line, at, 1)),
      });
    });
    return newestFirst(items);
  }

  async listWaiting(filter: ListFilter, page: PageRequest): Promise<Run[]> {
    return (await this.page(WAITING, filter, page)).map(rowToRun);
  }

  /** As listSendItems, for the runs parked now. */
  async listWaitingItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]> {
    const text = pageText(this.db, this.shapes, this.shapeOf('waiting items', filter, page), (line) => this.pageQuery(WAITING, filter, page, [line]), WAITING_LINES);
    if (text === undefined) {
      return (await this.listWaiting(filter, page)).map((run) => ({
        position: { createdAt: run.parkedAt ?? 0, id: run.runId }, json: JSON.stringify(toWaitingItem(run)),
      }));
    }
    const items: ItemText[] = [];
    eachLine(await text, 5, (line, at) => {
      const parked = timeOf(line, at, 1);
      items.push({ position: { createdAt: parked ?? 0, id: fieldOf(line, at, 4) }, json: waitingItemText(fieldOf(line, at, 0), parked, timeOf(line, at, 2), timeOf(line, at, 3)) });
    });
    return newestFirst(items);
  }

  async listReorgs(filter: ListFilter, page: PageRequest): Promise<ReorgResponseRecord[]> {
    return (await this.page(REORGS, filter, page)).map(rowToReorg);
  }

  async listSessions(filter: ListFilter, page: PageRequest): Promise<ReplaySession[]> {
    return (await this.page(SESSIONS, filter, page)).map(rowToSession);
  }

  /** As listSendItems, for the replay and test sessions. */
  async listSessionItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]> {
    const text = pageText(this.db, this.shapes, this.shapeOf('session items', filter, page), (line) => this.pageQuery(SESSIONS, filter, page, [line]), SESSION_LINES);
    if (text === undefined) {
      return (await this.listSessions(filter, page)).map((s) => ({ position: { createdAt: s.createdAt, id: s.sessionId }, json: JSON.stringify(toReplaySessionItem(s)) }));
    }
    const items: ItemText[] = [];
    eachLine(await text, 8, (line, at) => {
      const id = fieldOf(line, at, 0);
      const created = Number(fieldOf(line, at, 3));
      items.push({
        position: { createdAt: created, id },
        json: sessionItemText(id, fieldOf(line, at, 1), fieldOf(line, at, 2), created, timeOf(line, at, 4), fieldOf(line, at, 5), fieldOf(line, at, 6), fieldOf(line, at, 7)),
      });
    });
    return newestFirst(items);
  }

  async listWorkflows(known: readonly string[], limit: number, afterName?: string): Promise<WorkflowOverview[]> {
    const readers = readersOf(this.db);
    if (readers && this.workflowsSeen <= ONE_ROUND_WORKFLOWS) return this.listAllWorkflows(readers.select.bind(readers), known, limit, afterName);
    const pg = statementReadersOf(this.db);
    if (pg && this.workflowsSeen <= ONE_ROUND_WORKFLOWS) return this.listAllWorkflows(allWorkflowsOnPostgres(pg), known, limit, afterName);
    const seenSql = 'SELECT workflow FROM workflow_stats UNION SELECT workflow FROM workflow_states';
    const seen = readers ? await readers.select(seenSql, []) : await this.db.raw(seenSql);
    const rows = (Array.isArray(seen) ? seen : seen.rows) as { workflow: string }[];
    this.workflowsSeen = rows.length;
    const names = pageOfNames(known, rows.map((r) => r.workflow), limit, afterName);
    if (!names.length) return [];
    // On SQLite: three reads at once on reader connections. The waiting runs come from their per-workflow counts
    // on both stores (migrations 0008 and 0026: kept by triggers, so the overview costs the same however many wait).
    const inNames = 'WHERE workflow IN (SELECT value FROM json_each(?))';
    const list = [JSON.stringify(names)];
    const [stats, states, waiting] = await Promise.all(readers ? [
      readers.select(`SELECT * FROM workflow_stats ${inNames}`, list),
      readers.select(`SELECT * FROM workflow_states ${inNames}`, list),
      readers.select(WAITING_IN_NAMES, list),
    ] : [
      this.db('workflow_stats').whereIn('workflow', names),
      this.db('workflow_states').whereIn('workflow', names),
      this.db('workflow_waiting').select('workflow').sum({ n: 'runs' }).whereIn('workflow', names).groupBy('workflow'),
    ]);
    return this.overviews(names, stats, states, waiting as WaitingCount[]);
  }

  /**
   * The overview in one round of reads: every workflow's stats, state and waiting count at once (three statements
   * side by side on the readers), the page's names picked from them here. It saves the round that first read which
   * workflows the journal has seen (about a fifth of the overview, which a dashboard polls), at the cost of rows
   * for every workflow: so only while the journal has seen at most ONE_ROUND_WORKFLOWS of them (as the last read found).
   */
  private async listAllWorkflows(select: AllRows, known: readonly string[], limit: number, afterName?: string): Promise<WorkflowOverview[]> {
    const [stats, states, waiting] = await Promise.all([select(ALL_STATS, []), select(ALL_STATES, []), select(ALL_WAITING, [])]);
    const seen = new Set([...stats, ...states].map((r) => String(r.workflow)));
    this.workflowsSeen = seen.size;
    const names = pageOfNames(known, seen, limit, afterName);
    return names.length ? this.overviews(names, stats, states, waiting as unknown as WaitingCount[]) : [];
  }

  private overviews(names: readonly string[], stats: readonly Row[], states: readonly Row[], waiting: readonly WaitingCount[]): WorkflowOverview[] {
    const wanted = new Set(names);
    const statsBy = new Map(stats.filter((r) => wanted.has(String(r.workflow))).map((r) => [String(r.workflow), rowToWorkflowStats(r, this.histograms)]));
    const statesBy = new Map(states.filter((r) => wanted.has(String(r.workflow))).map((r) => [String(r.workflow), rowToWorkflow(r)]));
    const waitingBy = new Map(waiting.map((r) => [r.workflow, Number(r.n)]));
    return names.map((workflow) => ({
      workflow, stats: statsBy.get(workflow), state: statesBy.get(workflow), runsWaiting: waitingBy.get(workflow) ?? 0,
    }));
  }

  async sendsOfRuns(runIds: readonly string[]): Promise<SendAttempt[]> {
    const rows = dialectOf(this.db).storedItems
      ? await selectInPacked(this.db, 'sends', 'run_id', runIds, SEND_COLUMNS)
      : await selectIn(this.db, 'sends', 'run_id', runIds);
    return rows.map(rowToSend).sort((a, b) => a.createdAt - b.createdAt || (a.sendId < b.sendId ? -1 : 1));
  }

  /** As listSendItems, for `sendsOfRuns`: rendered by SQLite on a SQLite file, by `toSendAttemptItem` elsewhere. */
  async sendItemsOfRuns(runIds: readonly string[], explorer: ExplorerTxLinks): Promise<string[]> {
    const readers = readersOf(this.db);
    if (!readers) return (await this.sendsOfRuns(runIds)).map((send) => JSON.stringify(toSendAttemptItem(send, (n, c, h) => explorer.tx(n, c, h))));
    // A statement per chunk of runs, all asked for at once: the readers read them side by side.
    const read = (part: readonly string[]): Promise<string> =>
      readers.selectText(`SELECT ${SEND_LINE} FROM sends WHERE run_id IN (${part.map(() => '?').join(',')})`, part);
    const items = (await Promise.all(chunks(runIds, SEND_ITEMS_CHUNK).map(read))).flatMap((text) => sendItemsOfText(text, explorer));
    return items.sort((a, b) => a.position.createdAt - b.position.createdAt || (a.position.id < b.position.id ? -1 : 1)).map((item) => item.json);
  }

  async approvalsOfRuns(runIds: readonly string[]): Promise<Approval[]> {
    const rows = dialectOf(this.db).storedItems
      ? await selectInPacked(this.db, 'approvals', 'run_id', runIds, APPROVAL_COLUMNS)
      : await selectIn(this.db, 'approvals', 'run_id', runIds);
    return rows.map(rowToApproval).sort((a, b) => a.requestedAt - b.requestedAt || (a.approvalId < b.approvalId ? -1 : 1));
  }

  /** The query of one page (exposed for EXPLAIN in the benchmark). */
  pageQuery(list: ListTable, filter: ListFilter, page: PageRequest, columns?: readonly Knex.Raw[]): Knex.QueryBuilder {
    const q = this.db(list.table).select(columns ?? (dialectOf(this.db).storedItems ? this.db.raw(packedColumns(list.table, list.columns)) : '*'));
    if (list.where) q.whereRaw(list.where);
    const equals = Object.entries(filter.equals).map(([field, value]) => [COLUMN[field] ?? field, value] as const);
    const once = plannedOnce(this.db, equals.length);
    for (const [column, value] of equals) filterOnce(q, column, value, once);
    if (filter.since !== undefined) q.where(list.time, '>=', filter.since);
    // Implied below a cursor that lies before `until` (and, left in, SQLite would scan from `until` down).
    if (filter.until !== undefined && !(page.after && page.after.createdAt <= filter.until)) q.where(list.time, '<=', filter.until);
    if (page.after) q.whereRaw(`(${list.time}, ${list.id}) < (?, ?)`, [page.after.createdAt, page.after.id]);
    return keysetOrder(q, list.time, list.id, page.limit, once, equals[0]?.[0]);
  }

  /**
   * `pageQuery`'s rows. On a SQLite file they are read on a reader connection, with the query's text compiled once
   * per shape (see ShapedSql) and its bindings listed here in the order `pageQuery` adds them.
   */
  private async page(list: ListTable, filter: ListFilter, page: PageRequest): Promise<Record<string, unknown>[]> {
    const readers = readersOf(this.db);
    const viaKnex = async (): Promise<Record<string, unknown>[]> =>
      (await readRows(this.db, this.pageQuery(list, filter, page))).map((row) => unpackRow(row, list.columns));
    const pg = statementReadersOf(this.db);
    if (pg) {
      const shape = this.shapeOf(list.table, filter, page);
      const sql = pg.sql(shape, () => this.pageQuery(list, filter, page));
      return sql === undefined ? viaKnex() : pg.select(sql, shape.bindings);
    }
    if (!readers) return viaKnex();
    const shape = this.shapeOf(list.table, filter, page);
    const sql = this.shapes.sql(shape, () => this.pageQuery(list, filter, page));
    if (sql === undefined) return viaKnex();
    const order = { time: list.columns.indexOf(list.time), id: list.columns.indexOf(list.id) };
    return (await readers.selectPacked(sql, shape.bindings, order)).map((values) => unpackValues(values, list.columns));
  }

  /** The shape of `pageQuery` for these filters (its bindings in the order it adds them), named `kind`. */
  private shapeOf(kind: string, filter: ListFilter, page: PageRequest): QueryShape {
    const shape = new QueryShape(kind);
    const equals = Object.entries(filter.equals);
    const once = plannedOnce(this.db, equals.length);
    for (const [field, value] of equals) shape.equal(field, value, once);
    return shape.page(filter.since, filter.until, page, once);
  }
}

/** The sends' items of a text of SEND_LINE lines, each with its place in the sends' order. */
function sendItemsOfText(text: string, explorer: ExplorerTxLinks): ItemText[] {
  const items: ItemText[] = [];
  const prefixes = txPrefixesOf(explorer);
  eachLine(text, 8, (line, at) => {
    const created = Number(fieldOf(line, at, 5));
    const link = txLinkJson(explorer, prefixes, fieldOf(line, at, 2), fieldOf(line, at, 3), fieldOf(line, at, 4));
    items.push({
      position: { createdAt: created, id: fieldOf(line, at, 7) },
      json: sendItemOfStored(fieldOf(line, at, 0), link, fieldOf(line, at, 1), created, Number(fieldOf(line, at, 6))),
    });
  });
  return items;
}

/**
 * The JSON text of a send's explorer link (`null` where it has none), from its network, chain id and hash as a
 * SEND_LINE has them (JSON text, a number, JSON text): `toSendAttemptItem`'s link, as JSON.stringify writes it.
 * A hash of letters and digits is added to the network's prefix as it is, and the prefix's JSON text is worked out
 * once per network and chain id (`prefixes`): on a txs page, escaping fifty links cost more than the rest of a row.
 */
function txLinkJson(explorer: ExplorerTxLinks, prefixes: Map<string, string | null>, network: string, chainId: string, quotedHash: string): string {
  const hash = jsonText(quotedHash);
  if (!hash) return 'null';
  const key = `${chainId}\t${network}`;
  let prefix = prefixes.get(key);
  if (prefix === undefined) {
    const text = explorer.txPrefix(jsonText(network) ?? '', Number(chainId));
    // The prefix's JSON text without its closing quote: the hash and a quote complete it.
    prefix = text === null ? null : JSON.stringify(text).slice(0, -1);
    if (prefixes.size >= MAX_PREFIXES) prefixes.clear();
    prefixes.set(key, prefix);
  }
  if (prefix === null) return 'null';
  if (isPathSafe(hash)) return `${prefix}${hash}"`;
  return jsonString(explorer.tx(jsonText(network) ?? '', Number(chainId), hash) ?? '');
}

/** The JSON texts of the link prefixes of each explorer (txLinkJson), by chain id and network: a few, kept. */
function txPrefixesOf(explorer: ExplorerTxLinks): Map<string, string | null> {
  let prefixes = txPrefixes.get(explorer);
  if (!prefixes) txPrefixes.set(explorer, (prefixes = new Map()));
  return prefixes;
}
const txPrefixes = new WeakMap<ExplorerTxLinks, Map<string, string | null>>();
/** Networks and chain ids whose prefix is kept at most (a journal has a few). */
const MAX_PREFIXES = 1024;

/** A time field of a line (epoch ms), null when empty (NULL in SQL). */
function timeOf(line: string, at: Int32Array, i: number): number | null {
  return at[i + 1]! - 1 > at[i]! ? Number(fieldOf(line, at, i)) : null;
}

/** The text of a JSON string or null, as `json_quote` renders it. */
function jsonText(quoted: string): string | null {
  if (quoted === 'null') return null;
  return quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
}

export const HISTORY_LISTS = { SENDS, APPROVALS, WAITING, REORGS, SESSIONS };
