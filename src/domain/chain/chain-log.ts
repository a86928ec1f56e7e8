import type { Json } from '../journal/journal-event';

/** A block as the event trigger and the reorg check see it: its number, hash, parent's hash and time (unix seconds). */
export interface BlockHeader {
  readonly number: bigint;
  /** 0x-hex, lowercase. */
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
}

/**
 * A log of a contract's event, decoded by the event's signature (CONTRACT 8.6): each named argument with uint/int
 * as a decimal string, addresses lowercase 0x, bytes 0x-hex (an indexed string, bytes or array: its topic, the
 * keccak hash of the value, as the chain keeps nothing else).
 */
export interface ChainLog {
  /** The emitting contract, lowercase 0x-hex. */
  readonly address: string;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly txHash: string;
  /** The log's position in its block. */
  readonly logIndex: number;
  readonly args: Readonly<Record<string, Json>>;
}

/** Orders logs as the chain does: by block, then by position in the block. */
export function chainOrder(a: ChainLog, b: ChainLog): number {
  if (a.blockNumber !== b.blockNumber) return a.blockNumber < b.blockNumber ? -1 : 1;
  return a.logIndex - b.logIndex;
}
