import type { Knex } from 'knex';
import { StorageError } from '../../domain/errors';
import { statementOf, WRITE_SESSION, type DeferredWrites, type Row, type StoreDialect } from '../knex';

/** Bound parameters per combined statement: well inside the protocol's 65,535. */
const MAX_BINDINGS = 30_000;

interface Part {
  readonly statements: string[];
  readonly bindings: unknown[];
}

/**
 * A group commit's writes on PostgreSQL, sent as one statement: each write but the last a data-modifying CTE
 * (`WITH w1 AS (INSERT …), w2 AS (UPDATE …) DELETE …`), all of them run to completion whether or not anything reads
 * their rows, in the transaction of the group. Where each statement is a round trip, the half dozen writes of a
 * group (events, runs, step runs, lists, statistics, the schedule) cost one.
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
    if (!part || (part.statements.length > 0 && part.bindings.length + bindings.length > MAX_BINDINGS)) this.parts.push((part = { statements: [], bindings: [] }));
    part.statements.push(sql);
    part.bindings.push(...bindings);
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
      const last = statements.length - 1;
      const sql = last === 0 ? statements[0]! : `WITH ${statements.slice(0, last).map((s, i) => `w${i} AS (${s})`).join(',\n')}\n${statements[last]}`;
      try {
        await this.trx.raw(sql, bindings as Knex.RawBinding[]);
      } catch (err) {
        throw failureOf(err, statements);
      }
    }
  }
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
