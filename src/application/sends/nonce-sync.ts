import type { ChainReader } from '../ports/chain';
import type { Clock } from '../ports/clock';
import type { NonceAllocator } from '../ports/nonce-allocator';
import type { OperatorLog } from '../operator-log';
import type { SendMetrics } from '../ports/send-metrics';
import type { RelayerAccount } from './relayers';

/**
 * After a nonce error ("nonce too low/high"): the relayer's lane takes the chain's pending nonce again (never going
 * below what it handed out), and the resync is counted. A chain that does not answer leaves the lane as it is.
 */
export async function resyncLane(
  account: RelayerAccount, reader: ChainReader, nonces: NonceAllocator, clock: Clock, metrics: SendMetrics, log?: OperatorLog,
): Promise<void> {
  try {
    const pending = await reader.nonce(account.target, account.address, 'pending');
    await nonces.sync(account.lane, pending, clock.now());
    metrics.nonceResynced();
    log?.nonceResynced(account.name, account.network.name, pending);
  } catch {
    // No provider answered: the next nonce error tries again.
  }
}
