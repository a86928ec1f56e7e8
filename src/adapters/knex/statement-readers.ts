import type { Knex } from 'knex';
import { closeBeforeDestroy, readersOf, type QueryShape, type ShapedSql } from './list-reads';

type Row = Record<string, unknown>;

/**
 * A database's own prepared-statement readers for the history lists (PostgreSQL's, adapters/postgres/pg-readers.ts):
 * each page one trip, its text compiled by knex once per shape. Attached by the technology's opener.
 */
export interface StatementReaders {
  /** The statement text of a query by its shape, or undefined when the shape's text cannot be kept. */
  sql(shape: QueryShape, build: () => Knex.QueryBuilder): string | undefined;
  select(text: string, bindings: readonly unknown[]): Promise<Row[]>;
  /** The rows of a query of one column `line`, joined by newlines; '' for no rows. */
  selectText(text: string, bindings: readonly unknown[]): Promise<string>;
  /** Closes what the readers hold beside the database's pool (called when the knex is destroyed). */
  close(): Promise<void>;
}

const statementReaders = new WeakMap<object, StatementReaders>();

/** Gives the database its statement readers; closed when the knex is destroyed. */
export function attachStatementReaders(db: Knex, readers: StatementReaders): void {
  statementReaders.set(db.client, readers);
  closeBeforeDestroy(db, () => readers.close());
}

/** The statement readers of `db` (the root knex of a database that has them), or undefined (a transaction, SQLite). */
export function statementReadersOf(db: Knex): StatementReaders | undefined {
  if ((db as { isTransaction?: boolean }).isTransaction) return undefined;
  return statementReaders.get(db.client);
}

/** A list page's query whose one column is `line`, given the SQL of that column on this store. */
export type LineQuery = (line: Knex.Raw) => Knex.QueryBuilder;

/**
 * The text of a list page (its lines, see SqliteReaders.selectText) read on the store's readers: SQLite's with the
 * line `sqlite`, PostgreSQL's with the line `postgres` (the same text, rendered by each). Undefined where neither
 * applies (an in-memory SQLite database, a transaction) or the shape's text cannot be kept: the caller then reads
 * rows through knex.
 */
export function pageText(
  db: Knex, sqliteShapes: ShapedSql, shape: QueryShape, query: LineQuery, line: { sqlite: string; postgres: string },
): Promise<string> | undefined {
  const sqlite = readersOf(db);
  if (sqlite) {
    const sql = sqliteShapes.sql(shape, () => query(db.raw(line.sqlite)));
    return sql === undefined ? undefined : sqlite.selectText(sql, shape.bindings);
  }
  const pg = statementReadersOf(db);
  const sql = pg?.sql(shape, () => query(db.raw(line.postgres)));
  return sql === undefined ? undefined : pg!.selectText(sql, shape.bindings);
}
