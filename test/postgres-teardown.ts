/** jest globalTeardown: stops the run's PostgreSQL cluster (test/postgres-setup.ts) and removes its data directory. */
import { holder } from './postgres-setup';

export default async function teardown(): Promise<void> {
  holder.chainflowTestCluster?.stop();
  holder.chainflowTestCluster = undefined;
}
