/**
 * jest globalSetup: one throwaway PostgreSQL cluster for the whole run (test/support/postgres.ts). Its URL reaches
 * the workers through CHAINFLOW_TEST_PG_URL; postgres-teardown.ts stops it, and so does this process's exit
 * (an interrupted run leaves no server behind).
 */
import { PG_URL_ENV, startPostgresCluster, type PostgresCluster } from './support/postgres';

/** Where globalTeardown finds the cluster (jest gives both the same global object). */
export const holder = globalThis as { chainflowTestCluster?: PostgresCluster };

export default async function setup(): Promise<void> {
  if (process.env[PG_URL_ENV]) return; // a cluster given from outside (kept running by whoever started it)
  const cluster = await startPostgresCluster();
  holder.chainflowTestCluster = cluster;
  process.env[PG_URL_ENV] = cluster.url;
  process.once('exit', () => cluster.stop());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cluster.stop();
      process.exit(130);
    });
  }
}
