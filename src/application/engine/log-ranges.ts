import { DEFAULT_MAX_BLOCK_RANGE, type NetworkConfig } from '../config';
import type { ChainTarget } from '../ports/chain';
import { LogRangeTooLargeError, type ChainLogs } from '../ports/chain-logs';
import type { Logger } from '../ports/logger';
import type { ChainLog } from '../../domain/chain/chain-log';

/**
 * Reads logs in ranges a network's providers serve (CONTRACT 8.6): at most `max_block_range` blocks at a time, halved
 * for as long as this process runs each time a provider refuses a range as too wide (too many results, too many
 * blocks). Any other failure is the caller's to handle: nothing was read.
 */
export class LogRanges {
  private readonly ranges = new Map<string, bigint>();

  constructor(private readonly chain: ChainLogs, private readonly logger: Logger) {}

  /** The logs of the first range from `from` (at most up to `to`) that the providers serve, and that range's last block. */
  async next(network: NetworkConfig, from: bigint, to: bigint, addresses: readonly string[], event: string): Promise<{ logs: ChainLog[]; to: bigint }> {
    const target: ChainTarget = { network: network.name, chainId: network.chainId, rpc: network.rpc };
    for (;;) {
      const range = this.ranges.get(network.name) ?? BigInt(network.maxBlockRange ?? DEFAULT_MAX_BLOCK_RANGE);
      const end = from + range - 1n < to ? from + range - 1n : to;
      try {
        return { logs: await this.chain.logs(target, { fromBlock: from, toBlock: end, addresses, event }), to: end };
      } catch (err) {
        if (!(err instanceof LogRangeTooLargeError) || end === from) throw err;
        const halved = (end - from + 1n) / 2n;
        this.ranges.set(network.name, halved);
        this.logger.warn('provider refused a block range as too wide; halved', {
          network: network.name, from_block: Number(from), to_block: Number(end), max_block_range: Number(halved),
        });
      }
    }
  }
}
