import type { Receipt } from '../journal/journal-event';

/**
 * A transaction receipt as the application reads it: `status` true for success, false for a revert; amounts and
 * the block number are exact bigints. Fields the chain does not report stay absent (no effectiveGasPrice before
 * London, `l1Fee` only on OP-stack chains). The journal keeps receipts as decimal strings (CONTRACT 3): map with
 * `journalReceipt` at that boundary.
 */
export interface TxReceipt {
  readonly status: boolean;
  readonly blockNumber: bigint;
  /** The hash of the receipt's block (0x-hex lowercase), when the node reported it. */
  readonly blockHash?: string;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice?: bigint;
  readonly gasPrice?: bigint;
  readonly l1Fee?: bigint;
}

/** The journal's shape of a receipt: decimal strings, status 1 or 0. */
export function journalReceipt(r: TxReceipt): Receipt {
  return {
    status: r.status ? 1 : 0,
    blockNumber: r.blockNumber.toString(),
    ...(r.blockHash !== undefined ? { blockHash: r.blockHash } : {}),
    gasUsed: r.gasUsed.toString(),
    ...(r.effectiveGasPrice !== undefined ? { effectiveGasPrice: r.effectiveGasPrice.toString() } : {}),
    ...(r.gasPrice !== undefined ? { gasPrice: r.gasPrice.toString() } : {}),
    ...(r.l1Fee !== undefined ? { l1Fee: r.l1Fee.toString() } : {}),
  };
}

/** What the transaction paid in gas: gasUsed × (effectiveGasPrice, else gasPrice) + l1Fee. */
export function gasPaid(r: TxReceipt): bigint {
  return r.gasUsed * (r.effectiveGasPrice ?? r.gasPrice ?? 0n) + (r.l1Fee ?? 0n);
}
