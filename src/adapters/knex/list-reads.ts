import type { Knex } from 'knex';
import type { PageRequest } from '../../application/ports/run-repository';
import { dialectOf } from './dialect';
import { plusPlaceholders } from './sql-text';

type Row = Record<string, unknown>;

/**
 * Read connections of their own for the history lists (SQLite's readers beside its one writer, see
 * adapters/sqlite/sqlite-readers.ts): the repositories read a page through them when a database has them.
 */
export interface ListReaders {
  select(sql: string, bindings: readonly unknown[]): Promise<Row[]>;
  /** A page's rows packed into arrays of their values, newest first by the given fields (see SqliteReaders). */
  selectPacked(sql: string, bindings: readonly unknown[], newestFirst: { time: number; id: number }): Promise<unknown[][]>;
  /** A page's rows as one text: a line per row, its fields tab-separated (see eachLine). */
  selectText(sql: string, bindings: readonly unknown[]): Promise<string>;
  close(): Promise<void>;
}

const readers = new WeakMap<object, ListReaders>();

/** Gives the database (a knex instance of a SQLite file) its pool of readers; closed when the knex is destroyed. */
export function attachReaders(db: Knex, pool: ListReaders): void {
  readers.set(db.client, pool);
  closeBeforeDestroy(db, () => pool.close());
}

/** Runs `close` when the knex is destroyed, before its pool is (readers that hold connections of their own). */
export function closeBeforeDestroy(db: Knex, close: () => Promise<void>): void {
  const destroy = db.client.destroy.bind(db.client) as (cb?: unknown) => Promise<void>;
  db.client.destroy = async (cb?: unknown): Promise<void> => {
    await close();
    return destroy(cb);
  };
}

/**
 * The readers of `db`, or undefined (PostgreSQL, an in-memory SQLite, a transaction): the caller then reads
 * through knex. Only for statements that never need to see a write of a transaction still open.
 */
export function readersOf(db: Knex): ListReaders | undefined {
  return readers.get(db.client);
}

/** The rows of a read-only query: on a reader when `db` has them, through knex otherwise. */
export async function readRows(db: Knex, query: Knex.QueryBuilder): Promise<Row[]> {
  const pool = readersOf(db);
  if (!pool) return (await query) as Row[];
  const { sql, bindings } = query.toSQL();
  return pool.select(sql, bindings);
}

/** Shapes kept at most (a shape is which filters a query has, not their values). */
export const MAX_SHAPES = 1024;

/**
 * The SQL text of a query by its shape, compiled by knex once: building a query with knex costs more than running
 * it on SQLite (a tenth of a millisecond per page). The caller gives the bindings in the order its query takes
 * them; on the first use of a shape they are checked against the ones knex compiles, and a shape whose bindings
 * differ is never served from here (the caller then runs its knex query), so the text cannot drift from it.
 */
export class ShapedSql {
  private readonly texts = new Map<string, string | null>();

  /** `render`: the statement text of knex's compiled query (SQLite's `?` placeholders written as `?1`, … by default). */
  constructor(private readonly render: (compiled: Knex.Sql) => string = (compiled) => plusPlaceholders(compiled.sql)) {}

  sql(shape: QueryShape, build: () => Knex.QueryBuilder): string | undefined {
    const { key, bindings } = shape;
    let text = this.texts.get(key);
    if (text === undefined) {
      const compiled = build().toSQL();
      const same = compiled.bindings.length === bindings.length && compiled.bindings.every((b, i) => b === bindings[i]);
      text = same ? this.render(compiled) : null;
      if (this.texts.size >= MAX_SHAPES) this.texts.clear();
      this.texts.set(key, text);
    }
    return text ?? undefined;
  }
}

/**
 * Whether a page of `filters` equality filters is written to be planned once (see filterOnce): on a store whose page
 * statements are (dialect.pagesPlannedOnce), with at most one filter. A page of several filters keeps plain
 * equalities and is planned for its values: which filter's index to walk depends on them.
 */
export function plannedOnce(db: Knex, filters: number): boolean {
  return filters <= 1 && dialectOf(db).pagesPlannedOnce;
}

/**
 * A page's one equality filter as a statement planned once for every value (PostgreSQL's generic plans) must write it.
 * Such a plan does not know the value, so it must not have a choice to get wrong: for `workflow = $1 ORDER BY
 * created_at DESC, id DESC` it walks the time index and filters, which for a rare value reads the whole index. As
 * `workflow >= $1 AND workflow <= $1`, ordered by `workflow` first (keysetOrder), the same rows in the same order,
 * only the (workflow, time, id) index gives that order, whatever the value.
 */
export function filterOnce(q: Knex.QueryBuilder, column: string, value: unknown, once: boolean): void {
  if (once) q.where(column, '>=', value as Knex.Value).where(column, '<=', value as Knex.Value);
  else q.where(column, value as Knex.Value);
}

/** A keyset page's order and limit: newest first by (time, id), after the one filter's column where the page is planned once (filterOnce). */
export function keysetOrder(q: Knex.QueryBuilder, time: string, id: string, limit: number, once: boolean, filterColumn?: string): Knex.QueryBuilder {
  const order = [{ column: time, order: 'desc' }, { column: id, order: 'desc' }];
  if (once && filterColumn) order.unshift({ column: filterColumn, order: 'desc' });
  return q.orderBy(order).limit(limit);
}

/** A keyset page query's shape (the names of what it filters on) and its bindings, in the order they are added. */
export class QueryShape {
  private readonly names: string[];
  readonly bindings: unknown[] = [];
  /** Written to be planned once (see filterOnce): the statement may run as a generic plan. */
  planOnce = false;

  constructor(...names: string[]) {
    this.names = names;
  }

  add(name: string, ...values: unknown[]): this {
    this.names.push(name);
    this.bindings.push(...values);
    return this;
  }

  /** An equality filter, as filterOnce writes it (its value bound twice where `once`). */
  equal(name: string, value: unknown, once: boolean): this {
    return once ? this.add(`${name} range`, value, value) : this.add(name, value);
  }

  /**
   * The tail every page query shares: `since`, `until` (implied below a cursor before it), the cursor, the limit.
   * `once`: the query is written to be planned once (filterOnce).
   */
  page(since: number | undefined, until: number | undefined, page: PageRequest, once = false): this {
    if (since !== undefined) this.add('since', since);
    if (until !== undefined && !(page.after && page.after.createdAt <= until)) this.add('until', until);
    if (page.after) this.add('after', page.after.createdAt, page.after.id);
    this.bindings.push(page.limit);
    if (once) this.names.push('once');
    this.planOnce = once;
    return this;
  }

  get key(): string {
    return this.names.join(' ');
  }
}

/**
 * `items`, newest first on their position (time, then id in SQLite's binary order): rows come in the order of the
 * page's query, which an aggregate does not promise, so the order is checked and, if ever not kept, restored.
 */
export function newestFirst<T extends { position: { createdAt: number; id: string } }>(items: T[]): T[] {
  const before = (a: T, b: T): number => newerFirst(a.position.createdAt, a.position.id, b.position.createdAt, b.position.id);
  for (let i = 1; i < items.length; i++) if (before(items[i - 1]!, items[i]!) > 0) return items.sort(before);
  return items;
}

/**
 * Each line of `text` (as `selectText` reads it, every line of `fields` tab-separated fields), handed to `each` as
 * the text and the offsets of its fields: field i is `text.slice(at[i], at[i + 1] - 1)` (fieldOf). No string is made
 * per line or per field unless `each` makes it (splitting a 50-row page into arrays of fields was a fifth of its
 * JavaScript). A page whose last lines hold fewer fields than `fields` is refused instead of read round and round.
 */
export function eachLine(text: string, fields: number, each: (text: string, at: Int32Array) => void): void {
  const at = new Int32Array(fields + 1);
  for (let start = 0; start < text.length;) {
    at[0] = start;
    for (let f = 1; f < fields; f++) {
      at[f] = text.indexOf('\t', at[f - 1]!) + 1;
      // No tab left: a line with fewer fields (read on, the next line would start before this one).
      if (at[f] === 0) throw new Error(`a page line holds fewer than ${fields} fields`);
    }
    const end = text.indexOf('\n', at[fields - 1]!);
    at[fields] = (end < 0 ? text.length : end) + 1;
    each(text, at);
    start = at[fields]!;
  }
}

/** Field `i` of the line `eachLine` handed over (a function of the module: a closure made per line costs more than the field). */
export function fieldOf(text: string, at: Int32Array, i: number): string {
  return text.slice(at[i]!, at[i + 1]! - 1);
}

/** Sort order of a page, newest first: later time first, then the greater id in SQLite's binary order (bytes). */
export function newerFirst(timeA: number, idA: string, timeB: number, idB: string): number {
  return timeB - timeA || Buffer.compare(Buffer.from(idB), Buffer.from(idA));
}
