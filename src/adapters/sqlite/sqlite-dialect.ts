import type { Knex } from 'knex';
import type { StoreDialect } from '../knex';
import { selectOnPool } from './sqlite-client';
import { writeUnlessChanged } from './sqlite-guarded-write';
import { rebuildWithItem, withoutRowid } from './sqlite-rebuild';
import { SqliteWriteSession } from './sqlite-session';

/**
 * SQLite: one writer at a time (the database's write lock), so a read before a write decides and no row lock is
 * needed; write sessions and guarded writes save trips through the driver; rows keep their rendered items
 * (docs/performance.md). Lease times are the caller's (one host).
 */
export const sqliteDialect: StoreDialect = {
  kind: 'sqlite',
  greatest: (a, b) => `MAX(${a}, ${b})`,
  skipLocked: '',
  forUpdate: '',
  forShare: '',
  clockSql: undefined,
  oneWriter: true,
  storedItems: true,
  generatedItems: undefined,
  pagesPlannedOnce: false,
  partialIndexKeys: true,
  jsonInserts: true,
  wei: 'text',
  mergeCounts: (held, added) => `(SELECT json_group_object(k, n) FROM (SELECT key AS k, sum(value) AS n FROM (
      SELECT key, value FROM json_each(${held}) UNION ALL SELECT key, value FROM json_each(${added})) GROUP BY key))`,
  modifyingCte: false,
  streamKeys: (stream) => `(SELECT json_group_array(json_array(seq, hash)) FROM events WHERE events.stream = ${stream})`,
  bulkUpdate: undefined,
  deferWrites: undefined,
  writeSessions: {
    transact: <T>(db: Knex, work: (session: SqliteWriteSession) => Promise<T>, options?: { bulkLoad?: boolean }): Promise<T> =>
      SqliteWriteSession.transact(db, sqliteDialect, work, options),
  },
  guardedWrite: writeUnlessChanged,
  select: selectOnPool,
  clusterOnKey: withoutRowid,
  rebuildWithItem,
};
