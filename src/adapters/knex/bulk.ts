import type { Knex } from 'knex';
import { dialectOf, isWriteSession, type WriteSession } from './dialect';
import { packedValues, rowOfValues } from './rows';
import { sqlLiteral, sqlTuple } from './sql-text';

/** Where a statement goes: knex (or a knex transaction), or a write session (see WriteSession). */
export type Db = Knex | Knex.Transaction | WriteSession;

/** Rows per statement: SQLite and knex both stay well inside their limits at 500. */
export const MAX_ROWS = 500;
/** Bound variables per statement (SQLite allows 32766; PostgreSQL 65535). */
const MAX_VARS = 10000;
/** Rows per statement when SQLite unpacks them from one JSON array. */
const JSON_ROWS = 5000;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * SELECT rows whose `column` is one of `values`, in chunks. `ahead`: on a write session, read before the writes it
 * holds back (see SqliteWriteSession.select).
 */
export async function selectIn(db: Db, table: string, column: string, values: Iterable<string>, columns = '*', { ahead = false } = {}): Promise<Record<string, unknown>[]> {
  const all = [...values];
  const out: Record<string, unknown>[] = [];
  for (const part of chunks(all, MAX_ROWS)) {
    const sql = `SELECT ${columns} FROM ${table} WHERE ${column} IN (${part.map(() => '?').join(',')})`;
    if (isWriteSession(db)) {
      out.push(...(await db.select(sql, part, { ahead })));
      continue;
    }
    const rows = await db.raw(sql, part);
    out.push(...(Array.isArray(rows) ? rows : rows.rows));
  }
  return out;
}

/**
 * SQLite's `selectIn` for reads of many rows (exports): each chunk's rows come back as one JSON text, an array of
 * `packedValues` arrays (in no promised order), so that the driver builds one string per chunk instead of an object
 * per row (most of the cost of a read of thousands of rows). Rows are given back as `selectIn` gives them.
 */
export async function selectInPacked(db: Knex, table: string, column: string, values: Iterable<string>, columns: readonly string[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const part of chunks([...values], MAX_ROWS)) {
    const sql = `SELECT '[' || group_concat(${packedValues(table, columns)}, ',') || ']' AS page ` +
      `FROM ${table} WHERE ${column} IN (${part.map(() => '?').join(',')})`;
    const rows = (await db.raw(sql, part)) as { page: string | null }[];
    const page = rows[0]?.page;
    if (page) for (const v of JSON.parse(page) as unknown[][]) out.push(rowOfValues(v, columns));
  }
  return out;
}

const compareKeyValues = (a: unknown, b: unknown): number => {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
};

/**
 * `rows` sorted by the values at `key` (column positions), where several transactions write at once (PostgreSQL).
 * An upsert, or an insert that skips a taken key, locks its rows' keys one by one in the order of its VALUES, and
 * holds them to the commit: two transactions that meet the same shared rows (a workflow's statistics, a session, a
 * ledger rollup) in opposite orders wait on each other: a deadlock, which PostgreSQL breaks after a second
 * (`deadlock_timeout`) by failing one of them, done again by the journal writer. In one order, the later one only
 * waits for the earlier's commit.
 */
export function inKeyOrder(rows: readonly unknown[][], key: readonly number[]): readonly unknown[][] {
  if (rows.length < 2) return rows;
  return [...rows].sort((x, y) => {
    for (const i of key) {
      const c = compareKeyValues(x[i], y[i]);
      if (c !== 0) return c;
    }
    return 0;
  });
}

/**
 * Multi-row INSERT; with `conflictKey`, an upsert that overwrites every other column, with
 * `ignoreConflicts`, rows whose key exists are skipped; `accumulate` columns of an existing row are added to
 * rather than overwritten; `jsonColumns` hold values stored as JSON text.
 */
export async function insertRows(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  options: {
    conflictKey?: readonly string[]; ignoreConflicts?: boolean; jsonColumns?: readonly string[]; accumulate?: readonly string[];
    /** With `conflictKey`: the SET list of the update, as SQL (instead of overwriting every other column). */
    conflictSet?: string;
  } = {},
): Promise<void> {
  if (!rows.length) return;
  if (options.conflictKey && !dialectOf(db).oneWriter) rows = inKeyOrder(rows, options.conflictKey.map((c) => columns.indexOf(c)).filter((i) => i >= 0));
  const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_VARS / columns.length)));
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const quoted = columns.map((c) => `"${c}"`).join(',');
  let suffix = '';
  if (options.conflictKey && options.ignoreConflicts) {
    suffix = ` ON CONFLICT (${options.conflictKey.join(',')}) DO NOTHING`;
  } else if (options.conflictKey && options.conflictSet) {
    suffix = ` ON CONFLICT (${options.conflictKey.join(',')}) DO UPDATE SET ${options.conflictSet}`;
  } else if (options.conflictKey) {
    const updates = columns.filter((c) => !options.conflictKey!.includes(c)).map((c) =>
      (options.accumulate?.includes(c) ? `"${c}" = ${table}."${c}" + excluded."${c}"` : `"${c}" = excluded."${c}"`));
    suffix = ` ON CONFLICT (${options.conflictKey.join(',')}) DO UPDATE SET ${updates.join(', ')}`;
  }
  const json = columns.map((c) => options.jsonColumns?.includes(c) ?? false);
  if (isWriteSession(db) && db.textScripts && json.includes(true)) {
    // JSON columns (event bodies) travel nested in one JSON document of the rows, which SQLite renders back as the
    // same minified text (`->`): one native JSON.stringify on the main thread instead of one per value, each then
    // quoted, at the cost of SQLite parsing the document (the import's SQLite thread has time to spare, its main
    // thread has not).
    const picks = columns.map((_, i) => (json[i] ? `value->${i}` : `value->>${i}`)).join(',');
    for (const part of chunks(rows, JSON_ROWS)) db.write(`INSERT INTO ${table} (${quoted}) SELECT ${picks} FROM json_each(${sqlLiteral(JSON.stringify(part))}) WHERE true${suffix}`);
    return;
  }
  const encoded = json.includes(true) ? rows.map((r) => r.map((v, i) => (json[i] ? JSON.stringify(v) ?? 'null' : v))) : rows;
  if (isWriteSession(db) && db.textScripts) {
    // A write session sends SQL text (one script per batch, see SqliteWriteSession): the rows as a VALUES list of
    // literals, which SQLite reads in about half the time it takes to unpack the same rows from a JSON document.
    const head = `INSERT INTO ${table} (${quoted}) VALUES `;
    for (const part of chunks(encoded, JSON_ROWS)) db.write(head + part.map(sqlTuple).join(',') + suffix);
    return;
  }
  if (dialectOf(db).jsonInserts) {
    // One JSON document per statement, unpacked by SQLite itself: binding thousands of parameters one by one
    // (and knex scanning the SQL for them) costs more than the insert. `WHERE true` lets an upsert follow a SELECT.
    // A JSON column travels as its JSON text, a string inside the document (`->>` unquotes it): SQLite then stores
    // the text as it is, where a nested value would be parsed and rendered again (a quarter of the events insert).
    const sql = sqliteInsert(table, quoted, columns, suffix);
    for (const part of chunks(encoded, JSON_ROWS)) {
      await (db as Knex | Knex.Transaction).raw(sql, [JSON.stringify(part)]);
    }
    return;
  }
  for (const part of chunks(encoded, perStatement)) {
    await execute(db, `INSERT INTO ${table} (${quoted}) VALUES ${part.map(() => tuple).join(',')}${suffix}`, part.flat());
  }
}

/** One statement whose result is not needed (held back until the next read or the commit in a write session). */
export async function execute(db: Db, sql: string, bindings: readonly unknown[]): Promise<void> {
  if (isWriteSession(db)) db.write(sql, bindings);
  else await db.raw(sql, bindings as Knex.RawBinding[]);
}

/** SQLite's form of a multi-row insert: the rows as one JSON array (one binding), unpacked by `json_each`. */
function sqliteInsert(table: string, quoted: string, columns: readonly string[], suffix: string): string {
  const picks = columns.map((_, i) => `value->>${i}`).join(',');
  return `INSERT INTO ${table} (${quoted}) SELECT ${picks} FROM json_each(?) WHERE true${suffix}`;
}
