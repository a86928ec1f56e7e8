/** The SQLite technology of the knex adapters: its dialect and its opener (write sessions, readers, stored items inside). */
export { sqliteDialect } from './sqlite-dialect';
export { openSqlite } from './sqlite-open';
