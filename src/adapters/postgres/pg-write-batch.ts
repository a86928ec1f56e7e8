import type { Knex } from 'knex';
import { StorageError } from '../../domain/errors';
import { statementOf, WRITE_SESSION, type DeferredWrites, type Row, type StoreDialect } from '../knex';

/** Bound parameters per combined statement: well inside the protocol's 65,535. */
const MAX_BINDINGS = 30_000;

interface Part {
  readonly statements: string[];
  /** Each statement's bindings, by its index. */
  readonly bindings: (readonly unknown[])[];
  /** All of them together. */
  count: number;
}

/**
 * A group commit's writes on PostgreSQL, sent as one statement: the first write the statement itself, each other a
 * data-modifying CTE (`WITH w0 AS (UPDATE …), w1 AS (INSERT …) INSERT …`), all of them run to completion whether or
 * not anything reads their rows, in the transaction of the group. Where each statement is a round trip, the half
 * dozen writes of a group (events, runs, step runs, lists, statistics, the schedule) cost one.
 *
 * They run in the order they were written: PostgreSQL runs the statement itself first, then the CTEs no one reads
 * from the last written to the first (`combined`). The order is the writer's: it writes the rows every process
 * shares (a workflow's statistics, a session) last, so that each is locked for the tail of the statement and the
 * commit only, not for the whole statement while other groups wait for it (as when the last write was the
 * statement itself, which ran first).
 *
 * The statements of one combined statement share its snapshot and do not see each other's rows, so none may read
 * or write a row another writes: the journal writer's writes are to different tables, or to different rows of one
 * (a run's row is inserted or updated, never both), and its reads (a fence, the ledger's RETURNING) go before
 * (`select` sends what waits first).
 */
export class PgWriteBatch implements DeferredWrites {
  readonly [WRITE_SESSION] = true as const;
  readonly textScripts = false;
  private parts: Part[] = [];

  constructor(private readonly trx: Knex | Knex.Transaction, readonly dialect: StoreDialect) {}

  write(sql: string, bindings: readonly unknown[] = []): void {
    let part = this.parts.at(-1);
    if (!part || (part.statements.length > 0 && part.count + bindings.length > MAX_BINDINGS)) this.parts.push((part = { statements: [], bindings: [], count: 0 }));
    part.statements.push(sql);
    part.bindings.push(bindings);
    part.count += bindings.length;
  }

  async select(sql: string, bindings: readonly unknown[] = []): Promise<Row[]> {
    await this.send();
    return ((await this.trx.raw(sql, bindings as Knex.RawBinding[])) as { rows: Row[] }).rows;
  }

  /** Nothing is sent early: the writes wait for `send` (or a read). */
  flushSoon(): void {}

  async send(): Promise<void> {
    const parts = this.parts;
    this.parts = [];
    for (const { statements, bindings } of parts) {
      const { sql, values } = combined(statements, bindings);
      try {
        await this.trx.raw(sql, values as Knex.RawBinding[]);
      } catch (err) {
        throw failureOf(err, statements);
      }
    }
  }
}

/**
 * One statement that runs `statements` in their order: the first is the statement itself and the others its CTEs,
 * declared from the last to the second (PostgreSQL runs the CTEs no one reads after the statement, from the last
 * declared to the first; pg-write-batch.test.ts checks the order). The bindings follow the text.
 */
function combined(statements: readonly string[], bindings: readonly (readonly unknown[])[]): { sql: string; values: readonly unknown[] } {
  if (statements.length === 1) return { sql: statements[0]!, values: bindings[0]! };
  const order = statements.map((_, i) => i).slice(1).reverse();
  const sql = `WITH ${order.map((i, n) => `w${n} AS (${statements[i]})`).join(',\n')}\n${statements[0]}`;
  return { sql, values: [...order, 0].flatMap((i) => bindings[i]!) };
}

/**
 * The failure of a combined statement, named by the statements it held. A key taken (23505) is the events' key,
 * the only plain insert among them (every other insert says what a conflict does): the journal writer's retry of a
 * stream conflict knows it by that name.
 */
function failureOf(err: unknown, statements: readonly string[]): unknown {
  if (!(err instanceof StorageError)) return err;
  const operations = [...new Set(statements.map((s) => statementOf(s)))];
  const operation = err.driverCode === '23505' && operations.includes('insert into events') ? 'insert into events' : operations.join(', ');
  return new StorageError(operation, err.reason, err.driverCode, err.transient);
}
