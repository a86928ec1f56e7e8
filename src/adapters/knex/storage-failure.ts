import type { Knex } from 'knex';
import { StorageError } from '../../domain/errors';

/**
 * Driver errors become one-line StorageErrors at the one place every statement passes (the knex client), so no
 * message anywhere carries a statement or its values: knex prefixes the driver's message with the SQL and its
 * bindings (journal data, up to the whole batch), and a driver may quote a value itself.
 */
export function reportStorageFailures(db: Knex): void {
  const client = db.client as Knex.Client & { query(connection: unknown, obj: unknown): Promise<unknown>; acquireConnection(): Promise<unknown> };
  const Base = client.constructor as new (...args: never[]) => typeof client;
  // A subclass of the dialect's own client, swapped in under the instance: transactions build their clients from
  // `client.constructor.prototype`, so their statements pass here too; `config.client` stays the dialect's name.
  class ClearFailures extends Base {
    override query(connection: unknown, obj: unknown): Promise<unknown> {
      return super.query(connection, obj).catch((err: unknown) => {
        throw toStorageError(err, statementOf(obj));
      });
    }

    override acquireConnection(): Promise<unknown> {
      // A connection error may name the host and port of the configured URL: it is reported in words too.
      return super.acquireConnection().catch((err: unknown) => {
        throw toStorageError(err, 'connecting to the database');
      });
    }
  }
  Object.setPrototypeOf(client, ClearFailures.prototype);
}

/** A failure as a StorageError: what was being done (the statement's verb and table), and why in words. */
export function toStorageError(err: unknown, operation: string): StorageError {
  if (err instanceof StorageError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  return new StorageError(operation, reasonOf(err), typeof code === 'string' ? code : undefined, isTransient(err));
}

/** SQLite codes of a database that another process holds or that the disk failed to serve for a moment. */
const SQLITE_TRANSIENT = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_INTERRUPT']);
/** PostgreSQL classes worth trying again: connection, rollback (serialization, deadlock), resources, shutdown. */
const PG_TRANSIENT = new Set(['08', '40', '53', '57']);

/** A locked, unreachable or overloaded database (worth trying again), as opposed to a statement it refused. */
function isTransient(err: unknown): boolean {
  const e = (err ?? {}) as { code?: unknown; name?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  // Extended codes (SQLITE_BUSY_SNAPSHOT) count as their primary code.
  if (code?.startsWith('SQLITE_')) return SQLITE_TRANSIENT.has(code.split('_').slice(0, 2).join('_'));
  if (code && /^[0-9A-Z]{5}$/.test(code)) return PG_TRANSIENT.has(code.slice(0, 2));
  if (code && /^E[A-Z]+$/.test(code)) return true;
  return e.name === 'KnexTimeoutError';
}

/** `insert into events`, `select from runs`: the verb and the first table of a statement, never its values. */
export function statementOf(obj: unknown): string {
  const sql = typeof obj === 'string' ? obj : typeof (obj as { sql?: unknown })?.sql === 'string' ? (obj as { sql: string }).sql : '';
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? 'statement';
  const table = /\b(?:into|from|update|table|exists|on)\s+[`"[]?([A-Za-z_][A-Za-z0-9_]*)/i.exec(sql)?.[1];
  if (verb === 'insert') return `insert into ${table ?? 'a table'}`;
  if (verb === 'update') return `update of ${/^\s*update\s+[`"[]?([A-Za-z_][A-Za-z0-9_]*)/i.exec(sql)?.[1] ?? 'a table'}`;
  if (verb === 'begin' || verb === 'commit' || verb === 'rollback' || verb === 'savepoint' || verb === 'release') return `transaction ${verb}`;
  return table ? `${verb} ${verb === 'delete' || verb === 'select' ? 'from' : 'on'} ${table}` : verb;
}

const SQLITE_REASONS: Readonly<Record<string, string>> = {
  SQLITE_BUSY: 'the database is locked by another process',
  SQLITE_LOCKED: 'a table is locked',
  SQLITE_FULL: 'the disk is full',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_IOERR: 'a disk I/O error',
  SQLITE_CORRUPT: 'the database file is corrupt',
  SQLITE_NOTADB: 'the file is not a SQLite database',
  SQLITE_CANTOPEN: 'the database file cannot be opened',
  SQLITE_PERM: 'permission denied',
  SQLITE_NOMEM: 'out of memory',
  SQLITE_TOOBIG: 'a value is too large',
  SQLITE_MISMATCH: 'a value of the wrong type',
  SQLITE_INTERRUPT: 'interrupted',
  SQLITE_SCHEMA: 'the schema changed',
  SQLITE_ERROR: 'the statement failed',
};

/** PostgreSQL SQLSTATE classes (the first two characters). */
const PG_CLASSES: Readonly<Record<string, string>> = {
  '08': 'the connection failed',
  '22': 'a value was refused',
  '23': 'a constraint was violated',
  '25': 'the transaction state forbids it',
  '28': 'authentication failed',
  '3D': 'the database does not exist',
  '40': 'the transaction was rolled back (serialization failure or deadlock)',
  '42': 'the statement was refused (schema or permissions)',
  '53': 'the server lacks resources (disk, memory, connections)',
  '57': 'the server is shutting down or cancelled it',
  '58': 'a system error on the server',
};

/** The reason in words and the driver's code; never the driver's message (it may quote values). */
function reasonOf(err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  if (code?.startsWith('SQLITE_')) {
    // Constraint failures name the schema's columns (`UNIQUE constraint failed: events.hash`): safe to show.
    const constraint = /\b(UNIQUE|NOT NULL|CHECK|FOREIGN KEY|PRIMARY KEY) constraint failed(?:: ([A-Za-z0-9_.]+(?:, [A-Za-z0-9_.]+)*))?/.exec(message);
    const missing = /\bno such (table|column): ([A-Za-z0-9_.]+)/.exec(message);
    if (missing) return `no such ${missing[1]} ${missing[2]} (${code})`;
    if (code === 'SQLITE_CONSTRAINT') return `${constraint ? `${constraint[1]} constraint failed${constraint[2] ? ` on ${constraint[2]}` : ''}` : 'a constraint was violated'} (${code})`;
    return `${SQLITE_REASONS[code] ?? 'the statement failed'} (${code})`;
  }
  if (code && /^[0-9A-Z]{5}$/.test(code)) return `${PG_CLASSES[code.slice(0, 2)] ?? 'the statement failed'} (SQLSTATE ${code})`;
  if (code && /^E[A-Z]+$/.test(code)) return `the database cannot be reached (${code})`;
  if (e.name === 'KnexTimeoutError') return 'timed out waiting for a connection';
  return 'the statement failed';
}

/** Another writer took an ordinal of a stream this one appends to (the key of `events`), or PostgreSQL chose this transaction to roll back. */
export function isStreamConflict(err: unknown): boolean {
  if (!(err instanceof StorageError) || !err.driverCode) return false;
  return (err.driverCode === '23505' && err.operation === 'insert into events') || err.driverCode === '40001' || err.driverCode === '40P01';
}
