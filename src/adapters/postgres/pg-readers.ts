import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { pollWhileAlone, statementOf, toStorageError, type QueryShape, type StatementReaders } from '../knex';

type Row = Record<string, unknown>;
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}
type PoolClient = Knex.Client & { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };

/** Shapes (and statement texts) kept at most. */
const MAX_SHAPES = 1024;

/**
 * The history lists' reads on PostgreSQL (issue #29): each page is one trip to the server, as a named prepared
 * statement run on a connection of knex's pool (parsed and planned once per connection, then bound and run: a list
 * page's planning cost about as much as its execution), with its text compiled by knex once per shape. The pages
 * come back as one text, their lines joined by PostgreSQL (`selectText`), so that the same JavaScript reads a page
 * on both stores and no row becomes an object (see KnexRunRepository.listItems).
 */
export class PgReaders implements StatementReaders {
  private readonly shapes = new Map<string, string | null>();
  private readonly names = new Map<string, string>();

  /** Reads running now (see pollWhileAlone). */
  private running = 0;

  constructor(private readonly client: PoolClient, private readonly pollAloneMs = 0) {}

  /** The statement text of a query by its shape (PostgreSQL's `$n` parameters), as ShapedSql does for SQLite. */
  sql(shape: QueryShape, build: () => Knex.QueryBuilder): string | undefined {
    let text = this.shapes.get(shape.key);
    if (text === undefined) {
      const compiled = build().toSQL();
      const same = compiled.bindings.length === shape.bindings.length && compiled.bindings.every((b, i) => b === shape.bindings[i]);
      text = same ? compiled.toNative().sql : null;
      if (this.shapes.size >= MAX_SHAPES) this.shapes.clear();
      this.shapes.set(shape.key, text);
    }
    return text ?? undefined;
  }

  /** The rows of `text` (`$n` parameters), run as a prepared statement named after its text. */
  async select(text: string, bindings: readonly unknown[]): Promise<Row[]> {
    this.running++;
    const read = this.client.acquireConnection().then(async (conn: PgConnection) => {
      try {
        return (await conn.query({ name: this.nameOf(text), text, values: [...bindings] })).rows;
      } finally {
        void this.client.releaseConnection(conn);
      }
    });
    if (this.running === 1 && this.pollAloneMs > 0) pollWhileAlone(read, () => this.running === 1, this.pollAloneMs);
    try {
      return await read;
    } catch (err) {
      throw toStorageError(err, statementOf(text));
    } finally {
      this.running--;
    }
  }

  /** As SqliteReaders.selectText: the rows of a query of one column `line`, joined by newlines; '' for no rows. */
  async selectText(text: string, bindings: readonly unknown[]): Promise<string> {
    const [row] = await this.select(this.wrapped(text), bindings);
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
