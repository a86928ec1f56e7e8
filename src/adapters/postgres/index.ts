/** The PostgreSQL technology of the knex adapters: its dialect, its opener, and a throwaway cluster (tests, bench). */
export { postgresDialect } from './postgres-dialect';
export { openPostgres, postgresConnection } from './postgres-open';
export { PG_BIN, startPostgresCluster, type PostgresCluster } from './postgres-cluster';
