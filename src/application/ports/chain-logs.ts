import type { BlockHeader, ChainLog } from '../../domain/chain/chain-log';
import type { ChainTarget } from './chain';

/** Which logs to read: blocks `fromBlock`..`toBlock` (both included), emitted by one of `addresses` as `event`. */
export interface LogQuery {
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
  /** Lowercase or checksummed 0x-hex; at least one. */
  readonly addresses: readonly string[];
  /** The event's signature with `indexed` markers and names (`Transfer(address indexed from, …)`): topic 0 and the decoding. */
  readonly event: string;
}

/**
 * The provider asks for a smaller block range (too many results, range too large, in its own words): the same
 * request will keep failing, a smaller one may not. The message names the network and range, never a URL.
 */
export class LogRangeTooLargeError extends Error {
  constructor(readonly network: string, readonly fromBlock: bigint, readonly toBlock: bigint, readonly reason: string) {
    super(`${network}: blocks ${fromBlock}..${toBlock} refused as too wide: ${reason}`);
    this.name = 'LogRangeTooLargeError';
  }
}

/**
 * Reads a chain's logs and block headers over the network's read providers, with the failover and retries of
 * ChainReader (ChainUnavailableError when none answered, ChainMismatchError when all serve another chain).
 */
export interface ChainLogs {
  /** The matching logs of the range, in chain order. LogRangeTooLargeError when a provider refuses the range's width. */
  logs(target: ChainTarget, query: LogQuery): Promise<ChainLog[]>;
  /** The header of a block by number (`latest`: the head); null when the chain has no such block yet. */
  headerByNumber(target: ChainTarget, number: bigint | 'latest'): Promise<BlockHeader | null>;
  /** The header of a block by hash; null when the provider knows no such block (a reorg removed it, or never was). */
  headerByHash(target: ChainTarget, hash: string): Promise<BlockHeader | null>;
}
export const ChainLogs = Symbol('ChainLogs');
