import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import { dialectOf } from './dialect';
import type { JournalEvent } from '../../domain/journal/journal-event';
import type { Run, RunStatus } from '../../domain/run';
import type { PageRequest, RunItemText, RunFilter, RunRepository, StepItemsText } from '../../application/ports/run-repository';
import { toRunItem } from '../../application/history/items';
import type { StorageHealth, StorageKind } from '../../application/ports/storage-health';
import { Database } from './knex-journal.writer';
import { RUN_LIST_TABLES } from './migrations';
import { LINED_SIDE_TABLES } from './migration-side-lines';
import { selectIn } from './bulk';
import { stepItemsOfRuns } from './step-runs-store';
import { eachLine, fieldOf, filterOnce, keysetOrder, newestFirst, plannedOnce, QueryShape, readersOf, readRows, ShapedSql } from './list-reads';
import { runItemText } from './item-sql';
import { pageText, statementReadersOf } from './statement-readers';
import { packedColumns, rowToRun, RUN_COLUMNS, unpackRow, unpackValues } from './rows';

/**
 * Runs whose events one statement of `streams` reads: about 100 KB of JSON text, below V8's large-object size
 * (128 KB), which a page of 500 runs' events would pass.
 */
const STREAMS_CHUNK = 100;

/** Run filters that are plain columns of `runs`, by filter name. */
const COLUMN_FILTERS: ReadonlyArray<readonly [keyof RunFilter, string]> = [
  ['workflow', 'workflow'], ['status', 'status'], ['trigger', 'trigger_kind'], ['network', 'network'],
  ['contract', 'contract'], ['block', 'block'], ['runId', 'run_id'], ['errorKind', 'error_kind'],
  ['approvalStatus', 'approval_status'], ['session', 'session'], ['sessionId', 'session_id'],
];

/** Multi-valued filters answered from a side table keyed (value, created_at, run_id). */
const LIST_FILTERS: ReadonlyArray<readonly [keyof RunFilter, { table: string; column: string }]> = [
  ['relayer', RUN_LIST_TABLES.relayers], ['txHash', RUN_LIST_TABLES.txHashes], ['stepId', RUN_LIST_TABLES.stepIds],
];

/**
 * A line of `listItems`' page: the run's stored item (its head, runItemHead: SQLite's since migration 0010), then its
 * times, id and status, tab-separated. PostgreSQL keeps the whole line (migration 0027, GENERATED_LINES).
 */
const ITEM_TEXT = {
  sqlite: 'concat(r.item, char(9), r.created_at, char(9), r.finished_at, char(9), r.duration_ms, char(9), r.run_id, char(9), r.status)',
  postgres: 'r.line',
};
const ITEM_LINE = { sqlite: `${ITEM_TEXT.sqlite} AS line`, postgres: `${ITEM_TEXT.postgres} AS line` };
/**
 * The same line, looked up per row of a side table (`x`) that alone filters the page (see listQuery's `lookup`): a
 * subquery by the run's key instead of a join, which PostgreSQL plans in half the time (it weighs every index of
 * `runs` for a join) where it plans a page at each run: on a connection of the pool, and in a command. Planned once
 * (PgReaders' own connection), both run alike. SQLite keeps the join: its prepared statement keeps its plan.
 * On PostgreSQL the relayers' and step ids' side rows keep a finished run's line (migration 0029): only the runs
 * still going are looked up.
 */
const LOOKED_UP_LINE = {
  sqlite: `(SELECT ${ITEM_TEXT.sqlite} FROM runs r WHERE r.run_id = x.run_id) AS line`,
  postgres: `(SELECT ${ITEM_TEXT.postgres} FROM runs r WHERE r.run_id = x.run_id) AS line`,
};
const KEPT_OR_LOOKED_UP_LINE = {
  sqlite: LOOKED_UP_LINE.sqlite,
  postgres: `COALESCE(x.line, (SELECT ${ITEM_TEXT.postgres} FROM runs r WHERE r.run_id = x.run_id)) AS line`,
};
const LINED_TABLES = new Set<string>(LINED_SIDE_TABLES.map((s) => s.table));

/** Where a packed run holds its time and id (the page's order). */
const NEWEST_FIRST = { time: RUN_COLUMNS.indexOf('created_at'), id: RUN_COLUMNS.indexOf('run_id') };

/**
 * Keyset pages over the run projection. Every filter is an index range on (value, created_at, run_id), so a
 * page costs the rows it returns, however deep it is: no OFFSET, no full scan.
 */
@injectable()
export class KnexRunRepository implements RunRepository, StorageHealth {
  private readonly shapes = new ShapedSql();

  constructor(@inject(Database) private readonly db: Knex) {}

  async list(filter: RunFilter, page: PageRequest): Promise<Run[]> {
    const rows = await this.select(filter, page);
    return rows.map((row) => rowToRun(row));
  }

  /**
   * On a SQLite file, each run's row keeps the head of its item (see runItemHead; stored by SQLite, migration 0010)
   * and the page comes back as one text, a line per run: the head, then tab-separated its created_at, finished_at,
   * duration_ms, run id and status (JSON text holds no raw tab or newline; run ids match ID_PATTERN). The times are rendered here and the page's
   * runs never become objects in JavaScript: the list answers their text as it is once redacted (measured in
   * docs/benchmarks.md). PostgreSQL keeps the same items (migration 0025) and joins the same lines. Elsewhere (an in-memory
   * SQLite database), the runs of `list` rendered by `toRunItem`.
   */
  async listItems(filter: RunFilter, page: PageRequest): Promise<RunItemText[]> {
    // On PostgreSQL's readers (see LOOKED_UP_LINE).
    const side = statementReadersOf(this.db) !== undefined ? this.sideTableAlone(filter) : undefined;
    const line = side === undefined ? ITEM_LINE : LINED_TABLES.has(side) ? KEPT_OR_LOOKED_UP_LINE : LOOKED_UP_LINE;
    const text = pageText(this.db, this.shapes, this.shapeOf('items', filter, page), (column) => this.listQuery(filter, page, [column], side !== undefined), line);
    if (text === undefined) {
      return (await this.list(filter, page)).map((run) => ({
        position: { createdAt: run.createdAt, id: run.runId }, status: run.status, json: JSON.stringify(toRunItem(run)),
      }));
    }
    const items: RunItemText[] = [];
    eachLine(await text, 6, (line, at) => {
      const created = Number(fieldOf(line, at, 1));
      const finished = fieldOf(line, at, 2);
      items.push({
        position: { createdAt: created, id: fieldOf(line, at, 4) },
        status: fieldOf(line, at, 5) as RunStatus,
        json: runItemText(fieldOf(line, at, 0), created, finished ? Number(finished) : null, fieldOf(line, at, 3) || null),
      });
    });
    return newestFirst(items);
  }

  /**
   * `listQuery`'s rows (unpacked). On a SQLite file they are read on a reader connection, with the query's text
   * compiled once per shape (see ShapedSql) and its bindings listed here in the order `listQuery` adds them.
   */
  private async select(filter: RunFilter, page: PageRequest): Promise<Record<string, unknown>[]> {
    const readers = readersOf(this.db);
    const viaKnex = async (): Promise<Record<string, unknown>[]> =>
      (await readRows(this.db, this.listQuery(filter, page))).map((row) => unpackRow(row, RUN_COLUMNS));
    if (!readers) return viaKnex();
    const shape = this.shapeOf('rows', filter, page);
    const sql = this.shapes.sql(shape, () => this.listQuery(filter, page));
    if (sql === undefined) return viaKnex();
    return (await readers.selectPacked(sql, shape.bindings, NEWEST_FIRST)).map((values) => unpackValues(values, RUN_COLUMNS));
  }

  /** The shape of `listQuery` for these filters (its bindings in the order it adds them), named `kind`. */
  private shapeOf(kind: string, filter: RunFilter, page: PageRequest): QueryShape {
    const driver = LIST_FILTERS.find(([name]) => filter[name] !== undefined)?.[0];
    const once = this.plannedOnce(filter);
    const shape = new QueryShape(kind);
    if (driver) shape.equal(`${driver}*`, filter[driver], once);
    for (const [name] of [...LIST_FILTERS, ...COLUMN_FILTERS]) if (filter[name] !== undefined && name !== driver) shape.equal(name, filter[name], once);
    return shape.page(filter.since, filter.until, page, once);
  }

  /** The filters of `filter` beside times. */
  private named(filter: RunFilter): ReadonlyArray<readonly [keyof RunFilter, unknown]> {
    return [...LIST_FILTERS, ...COLUMN_FILTERS].filter(([name]) => filter[name] !== undefined);
  }

  /** The side table whose filter is all of `filter` (beside times), if one is: its page can look its runs up (see listQuery). */
  private sideTableAlone(filter: RunFilter): string | undefined {
    const named = this.named(filter);
    return named.length === 1 ? LIST_FILTERS.find(([name]) => name === named[0]![0])?.[1].table : undefined;
  }

  /** Whether the page is written to be planned once (see filterOnce). */
  private plannedOnce(filter: RunFilter): boolean {
    return plannedOnce(this.db, this.named(filter).length);
  }

  /**
   * The query `list` runs (exposed for EXPLAIN in the benchmark); `columns`: what to select (default whole runs).
   * `lookup` (only where sideTableAlone): the side table alone, `columns` looking each run up themselves.
   */
  listQuery(filter: RunFilter, page: PageRequest, columns?: readonly (string | Knex.Raw)[], lookup = false): Knex.QueryBuilder {
    // The most selective multi-valued filter drives the scan through its side table; the rest filter rows.
    const driver = LIST_FILTERS.find(([name]) => filter[name] !== undefined);
    const once = this.plannedOnce(filter);
    // The one filter's column, where the page is planned once: its order starts with it (keysetOrder).
    let filterColumn: string | undefined;
    let q: Knex.QueryBuilder;
    let key: string;
    if (driver) {
      const [name, { table, column }] = driver;
      q = this.db(`${table} as x`);
      filterOnce(q, (filterColumn = `x.${column}`), filter[name], once);
      if (!lookup) q.join('runs as r', 'r.run_id', 'x.run_id');
      key = 'x';
    } else {
      q = this.db('runs as r');
      key = 'r';
    }
    if (columns) q.select(columns);
    else q.select(dialectOf(this.db).storedItems ? this.db.raw(packedColumns('r', RUN_COLUMNS)) : 'r.*');
    for (const [name, spec] of LIST_FILTERS) {
      if (filter[name] === undefined || (driver && driver[0] === name)) continue;
      q.whereExists(
        this.db(spec.table).select(this.db.raw('1')).where(spec.column, filter[name] as string)
          .whereRaw('created_at = r.created_at AND run_id = r.run_id'),
      );
    }
    for (const [name, column] of COLUMN_FILTERS) {
      if (filter[name] !== undefined) filterOnce(q, (filterColumn = `r.${column}`), filter[name], once);
    }
    if (filter.since !== undefined) q.where(`${key}.created_at`, '>=', filter.since);
    // Below a cursor that already lies before `until`, the bound is implied; left in, SQLite would take it as
    // the range of the scan and walk every row from `until` down to the cursor.
    if (filter.until !== undefined && !(page.after && page.after.createdAt <= filter.until)) q.where(`${key}.created_at`, '<=', filter.until);
    if (page.after) {
      q.whereRaw(`(${key}.created_at, ${key}.run_id) < (?, ?)`, [page.after.createdAt, page.after.id]);
    }
    return keysetOrder(q, `${key}.created_at`, `${key}.run_id`, page.limit, once, filterColumn);
  }

  async get(runId: string): Promise<Run | undefined> {
    const row = await this.db('runs').where({ run_id: runId }).first();
    return row ? rowToRun(row) : undefined;
  }

  async stream(runId: string): Promise<JournalEvent[]> {
    const rows: { body: string }[] = await this.db('events').select('body').where({ stream: runId }).orderBy('seq');
    return rows.map((r) => JSON.parse(r.body) as JournalEvent);
  }

  async streams(runIds: readonly string[], types?: readonly JournalEvent['type'][]): Promise<Map<string, JournalEvent[]>> {
    if (dialectOf(this.db).storedItems) return this.sqliteStreams(runIds, types);
    const bySeq = new Map<string, JournalEvent[]>();
    for (const row of await selectIn(this.db, 'events', 'stream', runIds, 'stream, seq, type, body')) {
      if (types && !types.includes(row.type as JournalEvent['type'])) continue;
      const stream = row.stream as string;
      let events = bySeq.get(stream);
      if (!events) bySeq.set(stream, (events = []));
      events[Number(row.seq) - 1] = JSON.parse(row.body as string) as JournalEvent;
    }
    const out = new Map<string, JournalEvent[]>();
    for (const [stream, events] of bySeq) out.set(stream, events.filter((e) => e !== undefined));
    return out;
  }

  /** Read from the step runs the journal's writer keeps (see step-runs-store). */
  stepItemsOfRuns(runIds: readonly string[]): Promise<StepItemsText> {
    return stepItemsOfRuns(this.db, runIds);
  }

  /**
   * On SQLite, the events of up to STREAMS_CHUNK runs come back as one JSON text, `[stream, seq, body, …]`, built by
   * SQLite from the stored bodies (JSON text already): one string through the driver and one JSON.parse, instead of
   * a row object and a parse per event (exports read every event). The filter on `type` is applied by SQLite, so
   * events the caller does not need are not even sent. The rows arrive in primary key order, (stream, seq); an
   * aggregate's order is not promised, though, so a stream found out of order is sorted here (an ORDER BY inside
   * the aggregate costs SQLite a quarter more).
   */
  private async sqliteStreams(runIds: readonly string[], types?: readonly JournalEvent['type'][]): Promise<Map<string, JournalEvent[]>> {
    const out = new Map<string, JournalEvent[]>();
    const seqs = new Map<string, number[]>();
    const unsorted = new Set<string>();
    const readers = readersOf(this.db);
    const typeFilter = types ? ` AND type IN (${types.map(() => '?').join(',')})` : '';
    const read = async (ids: readonly string[]): Promise<string | null | undefined> => {
      const sql = `SELECT '[' || group_concat(json_quote(stream) || ',' || seq || ',' || body, ',') || ']' AS packed ` +
        `FROM events WHERE stream IN (${ids.map(() => '?').join(',')})${typeFilter}`;
      const bindings = [...ids, ...(types ?? [])];
      const rows = (readers ? await readers.select(sql, bindings) : await this.db.raw(sql, bindings)) as { packed: string | null }[];
      return rows[0]?.packed;
    };
    // Every chunk is asked for at once: on the readers they are read side by side (and while this thread works).
    const reads: Promise<string | null | undefined>[] = [];
    for (let i = 0; i < runIds.length; i += STREAMS_CHUNK) reads.push(read(runIds.slice(i, i + STREAMS_CHUNK)));
    for (const packed of await Promise.all(reads)) {
      if (!packed) continue;
      const values = JSON.parse(packed) as unknown[];
      let stream = '';
      let events: JournalEvent[] = [];
      let order: number[] = [];
      for (let k = 0; k < values.length; k += 3) {
        if (values[k] !== stream) {
          stream = values[k] as string;
          events = out.get(stream) ?? [];
          order = seqs.get(stream) ?? [];
          if (!events.length) {
            out.set(stream, events);
            seqs.set(stream, order);
          }
        }
        const seq = values[k + 1] as number;
        if (order.length && seq < order[order.length - 1]!) unsorted.add(stream);
        order.push(seq);
        events.push(values[k + 2] as JournalEvent);
      }
    }
    for (const stream of unsorted) {
      const order = seqs.get(stream)!;
      const events = out.get(stream)!;
      out.set(stream, order.map((seq, k) => ({ seq, e: events[k]! })).sort((a, b) => a.seq - b.seq).map((x) => x.e));
    }
    return out;
  }

  async sizes(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of ['runs', 'events', 'sends', 'approvals']) {
      const row = (await this.db(table).count({ n: '*' }).first()) as { n: number | string };
      out[table] = Number(row.n);
    }
    return out;
  }

  kind(): StorageKind {
    return dialectOf(this.db).kind;
  }

  async ping(): Promise<void> {
    await this.db.raw('SELECT 1');
  }
}
