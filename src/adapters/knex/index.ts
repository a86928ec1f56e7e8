/**
 * The shared knex module's entry for the technologies built on it (adapters/sqlite, adapters/postgres) and the
 * storage opener: the dialect port, how an opened database is migrated, and the SQL-text and read helpers they use.
 * The repositories themselves are bound by the composition root.
 */
export {
  dialectOf, isWriteSession, setLeaseClock, useDialect, WRITE_SESSION,
  type DeferredWrites, type GuardedWrites, type LeaseClock, type Row, type StoreDialect, type UnlockedSelect, type WriteSession,
} from './dialect';
export {
  BUSY_TIMEOUT_MS, migrateOpened, READER_CACHE_KIB, SERVER_CACHE_KIB, STREAM_CACHE_KIB, type OpenOptions, type StorageProfile,
} from './connection';
export { FOLDED_SLOT } from './migration-waiting';
export { attachReaders, MAX_SHAPES, newerFirst, ShapedSql, type ListReaders, type QueryShape } from './list-reads';
export { attachStatementReaders, type StatementReaders } from './statement-readers';
export { STORED_JSON, storedJsonFunctions } from './item-sql';
export { POLL_ALONE_MS, pollWhileAlone } from './poll-alone';
export { inline, plusPlaceholders, plussedText, sqlLiteral, sqlTuple } from './sql-text';
export { reportStorageFailures, statementOf, toStorageError } from './storage-failure';
