import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import { isSqlite } from './dialect';
import type { JournalEvent } from '../../domain/journal/journal-event';
import type { Run } from '../../domain/run';
import type { PageRequest, RunFilter, RunKey, RunRepository } from '../../application/ports/run-repository';
import type { StorageHealth } from '../../application/ports/storage-health';
import { Database } from './knex-journal.writer';
import { RUN_LIST_TABLES } from './migrations';
import { selectIn } from './bulk';
import { packedColumns, packedValues, rowOfValues, rowToRun, RUN_COLUMNS, unpackRow } from './rows';

/**
 * Runs whose events one statement of `streams` reads: about 100 KB of JSON text, below V8's large-object size
 * (128 KB), which a page of 500 runs' events would pass.
 */
const STREAMS_CHUNK = 100;

/** Where a packed run row (RUN_COLUMNS) holds its keys. */
const RUN_AT = RUN_COLUMNS.indexOf('created_at');
const RUN_ID = RUN_COLUMNS.indexOf('run_id');

/** Run filters that are plain columns of `runs`, by filter name. */
const COLUMN_FILTERS: ReadonlyArray<readonly [keyof RunFilter, string]> = [
  ['workflow', 'workflow'], ['status', 'status'], ['trigger', 'trigger_kind'], ['network', 'network'],
  ['contract', 'contract'], ['block', 'block'], ['runId', 'run_id'], ['errorKind', 'error_kind'],
  ['approvalStatus', 'approval_status'], ['session', 'session'],
];

/** Multi-valued filters answered from a side table keyed (value, created_at, run_id). */
const LIST_FILTERS: ReadonlyArray<readonly [keyof RunFilter, { table: string; column: string }]> = [
  ['relayer', RUN_LIST_TABLES.relayers], ['txHash', RUN_LIST_TABLES.txHashes], ['stepId', RUN_LIST_TABLES.stepIds],
];

/**
 * Keyset pages over the run projection. Every filter is an index range on (value, created_at, run_id), so a
 * page costs the rows it returns, however deep it is: no OFFSET, no full scan.
 */
@injectable()
export class KnexRunRepository implements RunRepository, StorageHealth {
  constructor(@inject(Database) private readonly db: Knex) {}

  async list(filter: RunFilter, page: PageRequest): Promise<Run[]> {
    if (isSqlite(this.db)) return (await this.packedPage(filter, page, packedValues('r', RUN_COLUMNS), RUN_AT, RUN_ID)).map((v) => rowToRun(rowOfValues(v, RUN_COLUMNS)));
    const rows: Record<string, unknown>[] = await this.listQuery(filter, page);
    return rows.map((row) => rowToRun(unpackRow(row, RUN_COLUMNS)));
  }

  async listKeys(filter: RunFilter, page: PageRequest): Promise<RunKey[]> {
    if (isSqlite(this.db)) {
      const values = await this.packedPage(filter, page, 'json_array(r.run_id, r.created_at, r.status)', 1, 0);
      return values.map((v) => ({ runId: v[0] as string, createdAt: Number(v[1]), status: v[2] as RunKey['status'] }));
    }
    const rows: { run_id: string; created_at: number | string; status: string }[] = await this.listQuery(filter, page, ['r.run_id', 'r.created_at', 'r.status']);
    return rows.map((r) => ({ runId: r.run_id, createdAt: Number(r.created_at), status: r.status as RunKey['status'] }));
  }

  /**
   * On SQLite, a page read as one JSON text: an array of `values` (a JSON array of the row, as SQL) in page order.
   * The driver then builds one string per page, not an object (or a string) per row: a page of 500 costs a third.
   */
  private async packedPage(filter: RunFilter, page: PageRequest, values: string, at: number, id: number): Promise<unknown[][]> {
    const inner = this.listQuery(filter, page, [this.db.raw(`${values} AS packed`)]).toSQL().toNative();
    const rows = (await this.db.raw(`SELECT '[' || group_concat(packed, ',') || ']' AS page FROM (${inner.sql})`, inner.bindings as Knex.RawBinding[])) as { page: string | null }[];
    const text = rows[0]?.page;
    const out = text ? (JSON.parse(text) as unknown[][]) : [];
    // The rows come in the subquery's order; an aggregate's order is not promised, so it is checked (and restored).
    const before = (a: unknown[], b: unknown[]): boolean => (a[at] as number) > (b[at] as number) || (a[at] === b[at] && (a[id] as string) > (b[id] as string));
    for (let k = 1; k < out.length; k++) {
      if (!before(out[k - 1]!, out[k]!)) return out.sort((a, b) => (before(a, b) ? -1 : 1));
    }
    return out;
  }

  /** The query `list` runs (exposed for EXPLAIN in the benchmark); `columns`: what to select (default whole runs). */
  listQuery(filter: RunFilter, page: PageRequest, columns?: readonly (string | Knex.Raw)[]): Knex.QueryBuilder {
    // The most selective multi-valued filter drives the scan through its side table; the rest filter rows.
    const driver = LIST_FILTERS.find(([name]) => filter[name] !== undefined);
    let q: Knex.QueryBuilder;
    let key: string;
    if (driver) {
      const [name, { table, column }] = driver;
      q = this.db(`${table} as x`).join('runs as r', 'r.run_id', 'x.run_id').where(`x.${column}`, filter[name] as string);
      key = 'x';
    } else {
      q = this.db('runs as r');
      key = 'r';
    }
    if (columns) q.select(columns);
    else q.select(isSqlite(this.db) ? this.db.raw(packedColumns('r', RUN_COLUMNS)) : 'r.*');
    for (const [name, spec] of LIST_FILTERS) {
      if (filter[name] === undefined || (driver && driver[0] === name)) continue;
      q.whereExists(
        this.db(spec.table).select(this.db.raw('1')).where(spec.column, filter[name] as string)
          .whereRaw('created_at = r.created_at AND run_id = r.run_id'),
      );
    }
    for (const [name, column] of COLUMN_FILTERS) {
      if (filter[name] !== undefined) q.where(`r.${column}`, filter[name] as string | number);
    }
    if (filter.since !== undefined) q.where(`${key}.created_at`, '>=', filter.since);
    // Below a cursor that already lies before `until`, the bound is implied; left in, SQLite would take it as
    // the range of the scan and walk every row from `until` down to the cursor.
    if (filter.until !== undefined && !(page.after && page.after.createdAt <= filter.until)) q.where(`${key}.created_at`, '<=', filter.until);
    if (page.after) {
      q.whereRaw(`(${key}.created_at, ${key}.run_id) < (?, ?)`, [page.after.createdAt, page.after.id]);
    }
    return q.orderBy([{ column: `${key}.created_at`, order: 'desc' }, { column: `${key}.run_id`, order: 'desc' }]).limit(page.limit);
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
    if (isSqlite(this.db)) return this.sqliteStreams(runIds, types);
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
    for (let i = 0; i < runIds.length; i += STREAMS_CHUNK) {
      const ids = runIds.slice(i, i + STREAMS_CHUNK);
      const typeFilter = types ? ` AND type IN (${types.map(() => '?').join(',')})` : '';
      const rows: { packed: string | null }[] = await this.db.raw(
        `SELECT '[' || group_concat(json_quote(stream) || ',' || seq || ',' || body, ',') || ']' AS packed ` +
        `FROM events WHERE stream IN (${ids.map(() => '?').join(',')})${typeFilter}`,
        [...ids, ...(types ?? [])],
      );
      const packed = rows[0]?.packed;
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

  async ping(): Promise<void> {
    await this.db.raw('SELECT 1');
  }
}
