import type { Knex } from 'knex';
import sqlite3 from 'sqlite3';
import { MAX_SHAPES, newerFirst, pollWhileAlone, statementOf, toStorageError, type ListReaders } from '../knex';
import { allRows, type Connection } from './sqlite-client';

type Row = Record<string, unknown>;

/** Read connections per process: enough for the driver's thread pool (4 threads by default) to stay busy. */
export const READERS = 4;

/**
 * A small pool of read-only connections (`PRAGMA query_only`) to one SQLite file, beside knex's single writer
 * connection. In WAL mode each reader sees the last committed state and neither waits for the writer nor makes it
 * wait, so the history lists, run by many clients at once, neither queue behind one connection nor behind an
 * append. Each statement is prepared once per connection (`prepared`) and run to completion, in one trip through
 * the driver's thread pool; it reads in a transaction of its own, so a page is consistent in itself.
 */
export class SqliteReaders implements ListReaders {
  private readonly idle: Connection[] = [];
  private readonly waiting: Array<(conn: Connection) => void> = [];
  private readonly all = new Set<Promise<Connection>>();
  private closed = false;
  /** Statements running on a reader now. */
  private running = 0;

  /** `pollAloneMs`: how long the event loop polls, at most, for a read that runs alone (see select); 0: never. */
  constructor(
    private readonly filename: string, private readonly pragmas: readonly string[], private readonly size = READERS, private readonly pollAloneMs = 0,
  ) {}

  /**
   * Runs one read statement on an idle reader (opening one when fewer than `size` are open, waiting otherwise).
   *
   * A statement that runs alone is waited for by polling, when `pollAloneMs` is set (the server's readers; see
   * pollWhileAlone): waking a sleeping event loop from another thread cost 25 µs of a 60 µs statement on this
   * machine's virtual CPUs. A command's readers never poll: an export's reads are long, and a polling loop took a
   * CPU from its readers and file writes (a third of its rate).
   */
  async select(sql: string, bindings: readonly unknown[]): Promise<Row[]> {
    const conn = await this.acquire();
    this.running++;
    try {
      const rows = allRows(conn, sql, bindings);
      if (this.running === 1 && this.pollAloneMs > 0) pollWhileAlone(rows, () => this.running === 1, this.pollAloneMs);
      return await rows;
    } catch (err) {
      throw toStorageError(err, statementOf(sql));
    } finally {
      this.running--;
      this.release(conn);
    }
  }

  /**
   * The rows of `sql`, a query of one column `packed` (a JSON array per row, see packedColumns), each as its array
   * of values. SQLite joins them into one text, so the driver hands over one string instead of an object per row
   * (a third of a page's cost on the main thread). A query's order is kept by SQLite in practice but not promised
   * for an aggregate: `newestFirst` (the positions of the time and id values) checks it, and sorts when it was lost.
   */
  async selectPacked(sql: string, bindings: readonly unknown[], newestFirst: { time: number; id: number }): Promise<unknown[][]> {
    const [row] = await this.select(wrapped(sql, PACKED_PAGE), bindings);
    const text = row?.page;
    if (typeof text !== 'string') return [];
    const rows = JSON.parse(`[${text}]`) as unknown[][];
    const { time, id } = newestFirst;
    const before = (a: unknown[], b: unknown[]): number => newerFirst(Number(a[time]), String(a[id]), Number(b[time]), String(b[id]));
    for (let i = 1; i < rows.length; i++) if (before(rows[i - 1]!, rows[i]!) > 0) return rows.sort(before);
    return rows;
  }

  /**
   * The rows of `sql`, a query of one column `line` (text fields joined by tabs, none holding a tab or a newline:
   * JSON text, numbers, ids), as the one text SQLite joins them into (cut by `eachLine`); '' for no rows.
   */
  async selectText(sql: string, bindings: readonly unknown[]): Promise<string> {
    const [row] = await this.select(wrapped(sql, LINES_PAGE), bindings);
    const text = row?.page;
    return typeof text === 'string' ? text : '';
  }

  async close(): Promise<void> {
    this.closed = true;
    const conns = await Promise.all([...this.all].map((p) => p.catch(() => undefined)));
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(conns.map((c) => c && new Promise<void>((resolve) => c.close(() => resolve()))));
  }

  private acquire(): Promise<Connection> {
    if (this.closed) return Promise.reject(toStorageError(new Error('closed'), 'reading the database (the storage is closed)'));
    const conn = this.idle.pop();
    if (conn) return Promise.resolve(conn);
    if (this.all.size < this.size) {
      const opening = this.open();
      this.all.add(opening);
      // A reader that does not open is forgotten: the next read tries again and reports the error again.
      opening.catch(() => this.all.delete(opening));
      return opening.catch((err: unknown) => {
        throw toStorageError(err, 'connecting to the database');
      });
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(conn: Connection): void {
    const next = this.waiting.shift();
    if (next) next(conn);
    else this.idle.push(conn);
  }

  private open(): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(this.filename, sqlite3.OPEN_READWRITE, (err) => {
        if (err) return reject(err);
        db.exec([...this.pragmas, 'PRAGMA query_only = ON'].join(';'), (e) => (e ? reject(e) : resolve(db as unknown as Connection)));
      });
    });
  }
}

/** How `selectPacked` and `selectText` wrap a page's query: its rows joined into one text. */
const PACKED_PAGE = (sql: string): string => `SELECT group_concat(packed, ',') AS page FROM (${sql})`;
const LINES_PAGE = (sql: string): string => `SELECT group_concat(line, char(10)) AS page FROM (${sql})`;
const wrappedTexts = new Map<(sql: string) => string, Map<string, string>>();

/**
 * `wrap(sql)`, the same string each time for the same `sql` (kept for at most MAX_SHAPES of them): the prepared
 * statements are looked up by their text, and a text built anew on every request is flattened and hashed again
 * on every lookup (about a tenth of a list page's own JavaScript, in a profile of the server).
 */
function wrapped(sql: string, wrap: (sql: string) => string): string {
  let texts = wrappedTexts.get(wrap);
  if (!texts) wrappedTexts.set(wrap, (texts = new Map()));
  let text = texts.get(sql);
  if (text === undefined) {
    if (texts.size >= MAX_SHAPES) texts.clear();
    texts.set(sql, (text = wrap(sql)));
  }
  return text;
}
