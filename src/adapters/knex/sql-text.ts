/**
 * SQL as text: values as literals and statements rewritten, for the writes a write session sends as one script and
 * the reads SQLite runs prepared (adapters/sqlite). Pure text: no database is touched here.
 */

/** A value as an SQL literal: the writes of a session travel as SQL text (see SqliteWriteSession). */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('an SQL literal must be a finite number');
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  // A string literal: quotes doubled, nothing else is special in SQLite. JSON.stringify escapes control
  // characters and lone surrogates, so JSON text travels intact.
  const text = String(value);
  return `'${text.includes("'") ? text.replaceAll("'", "''") : text}'`;
}

/**
 * A row of values as an SQL tuple, each value as `json_each` would give it from the row's JSON array (the form
 * `insertRows` binds elsewhere): a non-finite number or undefined is NULL, an object its JSON text.
 */
export function sqlTuple(row: readonly unknown[]): string {
  let out = '(';
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (i) out += ',';
    if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'NULL';
    else if (v !== null && typeof v === 'object') out += sqlLiteral(JSON.stringify(v));
    else out += sqlLiteral(v);
  }
  return `${out})`;
}

/** Replaces each `?` of `sql` (which holds no other question mark) by its binding as a literal. */
export function inline(sql: string, bindings: readonly unknown[]): string {
  let i = 0;
  const out = sql.replace(/\?/g, () => sqlLiteral(bindings[i++]));
  if (i !== bindings.length) throw new Error('inline: the bindings do not match the placeholders');
  return out;
}

/** The texts `selectOnPool` runs, by the SQL it was given (see plusPlaceholders). */
/** Statement texts plussedText keeps at most. */
const MAX_STATEMENTS = 256;

const plussed = new Map<string, string>();

/**
 * `sql` with each parameter `?` written `+?` (outside quoted text and names). SQLite marks a statement whose bare
 * parameters it could use to choose a plan (the partial indexes on `runs`, a LIMIT) to be compiled again whenever
 * they are bound anew, and the driver binds on every run: a list page's statement was prepared again on each
 * request, 55 – 70 µs of a 100 – 200 µs read. `+?` is the same value (unary plus is a no-op in SQLite, with no
 * affinity, as a bare parameter) that the planner does not look into; the plans of every list stay the same (the
 * waiting list's partial indexes are chosen by its literal `status = 'waiting'`). See docs/benchmarks.md.
 */
/** `plusPlaceholders(sql)`, worked out once per statement text (up to MAX_STATEMENTS of them). */
export function plussedText(sql: string): string {
  let text = plussed.get(sql);
  if (text === undefined) {
    if (plussed.size >= MAX_STATEMENTS) plussed.clear();
    plussed.set(sql, (text = plusPlaceholders(sql)));
  }
  return text;
}

export function plusPlaceholders(sql: string): string {
  let out = '';
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote) {
      // A doubled quote inside quoted text toggles out and straight back in: the text is copied as it is.
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      quote = ch;
    } else if (ch === '?') {
      out += '+';
    }
    out += ch;
  }
  return out;
}
