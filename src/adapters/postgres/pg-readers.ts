import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { MAX_SHAPES, POLL_ALONE_MS, pollWhileAlone, ShapedSql, statementOf, toStorageError, type QueryShape, type StatementReaders } from '../knex';

type Row = Record<string, unknown>;
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] } | string): Promise<{ rows: Row[] }>;
  on(event: 'error' | 'end', listener: () => void): unknown;
}
type PoolClient = Knex.Client & {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(c: PgConnection): Promise<void>;
  /** A connection of the database's settings outside the pool (what the pool makes its connections with). */
  acquireRawConnection(): Promise<PgConnection>;
  destroyRawConnection(c: PgConnection): Promise<void>;
};

/** The readers' own connection (see PgReaders.onConnection). */
interface Own {
  readonly conn: PgConnection;
  busy: boolean;
  /** Set when the connection failed or ended: it is then closed and made again by the next read. */
  broken: boolean;
}

/**
 * The settings of the readers' own connection: every statement runs with one plan made for all values (a generic
 * plan), so that a page is not planned again at each run (that cost as much as running it), and a sort is the last
 * resort. A generic plan knows neither a page's value nor how many rows lie past its cursor: costed on default
 * guesses, a sort of the few rows it guesses past a deep page's cursor can look cheaper than walking the index in
 * order, and for a common value it would read and sort all of that value's rows.
 * Every statement sent there has an index that gives its order: pages planned once (QueryShape.planOnce, see
 * filterOnce) and the lists' other reads (by keys and names, unordered). A page of several filters is planned for its
 * values on a connection of the pool.
 */
export const OWN_CONNECTION_SETTINGS: Readonly<Record<string, string>> = { plan_cache_mode: 'force_generic_plan', enable_sort: 'off' };
const OWN_SETTINGS_SQL = Object.entries(OWN_CONNECTION_SETTINGS).map(([name, value]) => `SET ${name} = ${value}`).join('; ');

/**
 * The history lists' reads on PostgreSQL (issue #29): each page is one trip to the server, as a named prepared
 * statement (parsed once per connection, then bound and run), with its text compiled by knex once per shape; on a
 * server, on a connection of the readers' own that runs generic plans (OWN_CONNECTION_SETTINGS). The pages
 * come back as one text, their lines joined by PostgreSQL (`selectText`), so that the same JavaScript reads a page
 * on both stores and no row becomes an object (see KnexRunRepository.listItems).
 */
export class PgReaders implements StatementReaders {
  private readonly shapes = new ShapedSql((compiled) => compiled.toNative().sql);
  private readonly names = new Map<string, string>();
  /** Texts of pages that must be planned for their values (not QueryShape.planOnce): never run on the own connection. */
  private readonly planned = new Set<string>();

  /** Reads running now (see pollWhileAlone). */
  private running = 0;

  private own: Promise<Own | undefined> | undefined;
  private closed = false;

  /** `server`: a server's readers (polled for, with a connection of their own); `pollAloneMs`: how long a read is polled for at most. */
  constructor(private readonly client: PoolClient, private readonly server = false, private readonly pollAloneMs = POLL_ALONE_MS) {}

  /**
   * The statement text of a query by its shape (PostgreSQL's `$n` parameters). A page not written to be planned once
   * is noted at each call (its run follows), so that it never runs on the own connection.
   */
  sql(shape: QueryShape, build: () => Knex.QueryBuilder): string | undefined {
    const text = this.shapes.sql(shape, build);
    if (text !== undefined && !shape.planOnce && !this.planned.has(text)) {
      if (this.planned.size >= MAX_SHAPES) this.planned.clear();
      this.planned.add(text);
    }
    return text;
  }

  /** The rows of `text` (`$n` parameters), run as a prepared statement named after its text. */
  select(text: string, bindings: readonly unknown[]): Promise<Row[]> {
    return this.run(text, bindings, this.planned.has(text));
  }

  /** As select; `planned`: on a connection of the pool, where each run is planned for its values (see OWN_CONNECTION_SETTINGS). */
  private async run(text: string, bindings: readonly unknown[], planned: boolean): Promise<Row[]> {
    this.running++;
    const read = this.onConnection(async (conn) => (await conn.query({ name: this.nameOf(text), text, values: [...bindings] })).rows, planned);
    if (this.running === 1 && this.server) pollWhileAlone(read, () => this.running === 1, this.pollAloneMs);
    try {
      return await read;
    } catch (err) {
      throw toStorageError(err, statementOf(text));
    } finally {
      this.running--;
    }
  }

  /** `work` on the readers' own connection when it is free (a server's) and not `planned`, else on one of the pool's. */
  private async onConnection<T>(work: (conn: PgConnection) => Promise<T>, planned: boolean): Promise<T> {
    const own = this.server && !planned ? await this.ownConnection() : undefined;
    if (own && !own.busy) {
      own.busy = true;
      try {
        return await work(own.conn);
      } catch (err) {
        // The connection failed, not the statement (its server process ended, the socket closed): a read can be
        // asked again, on the pool's, whose connections are checked before use. A statement's error is an ERROR.
        if ((err as { severity?: unknown }).severity === 'ERROR') throw err;
        own.broken = true;
      } finally {
        own.busy = false;
      }
    }
    const conn = await this.client.acquireConnection();
    try {
      return await work(conn);
    } finally {
      void this.client.releaseConnection(conn);
    }
  }

  /** The readers' own connection, made on first use and again after it broke; undefined when it cannot be made now. */
  private async ownConnection(): Promise<Own | undefined> {
    const current = await this.own;
    if (current?.broken && !current.busy) {
      this.own = undefined;
      void this.client.destroyRawConnection(current.conn).catch(() => undefined);
    }
    if (!this.own && !this.closed) this.own = this.open();
    const own = await this.own;
    return own && !own.broken ? own : undefined;
  }

  /**
   * A connection of the readers' own, with its settings; undefined when it cannot be made now (the database away, a
   * setting refused): this read takes the pool's way (and fails there, named, if it must), the next one tries again.
   */
  private async open(): Promise<Own | undefined> {
    let conn: PgConnection;
    try {
      conn = await this.client.acquireRawConnection();
    } catch {
      this.own = undefined;
      return undefined;
    }
    const own: Own = { conn, busy: false, broken: false };
    const broke = (): void => {
      own.broken = true;
    };
    conn.on('error', broke);
    conn.on('end', broke);
    try {
      await conn.query(OWN_SETTINGS_SQL);
      return own;
    } catch {
      // A connection whose settings were refused is not used: the reads take the pool's way, planned for their values.
      this.own = undefined;
      void this.client.destroyRawConnection(conn).catch(() => undefined);
      return undefined;
    }
  }

  /** Closes the readers' own connection (the database's knex is being destroyed). */
  async close(): Promise<void> {
    this.closed = true;
    const own = await this.own;
    this.own = undefined;
    if (own) await this.client.destroyRawConnection(own.conn).catch(() => undefined);
  }

  /** As SqliteReaders.selectText: the rows of a query of one column `line`, joined by newlines; '' for no rows. */
  async selectText(text: string, bindings: readonly unknown[]): Promise<string> {
    const [row] = await this.run(this.wrapped(text), bindings, this.planned.has(text));
    return typeof row?.page === 'string' ? row.page : '';
  }

  private readonly wraps = new Map<string, string>();

  private wrapped(text: string): string {
    let out = this.wraps.get(text);
    if (out === undefined) {
      if (this.wraps.size >= MAX_SHAPES) this.wraps.clear();
      this.wraps.set(text, (out = `SELECT string_agg(line, chr(10)) AS page FROM (${text}) AS p`));
    }
    return out;
  }

  /** A statement's name: the same text, the same name, on every connection (pg prepares it once on each). */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= MAX_SHAPES) this.names.clear();
      this.names.set(text, (name = `cf_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
    }
    return name;
  }
}
