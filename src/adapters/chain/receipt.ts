import type { Receipt } from '../../domain/journal/journal-event';
import { ProviderFailure, quantity } from './json-rpc';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A node's `eth_getTransactionReceipt` result (0x-hex quantities) as the journal's Receipt: decimal strings for
 * the amounts and the block number, status 1 or 0. Fields the node does not report stay absent (pre-London
 * nodes have no effectiveGasPrice, pre-Byzantium receipts no status; `l1Fee` only on OP-stack chains).
 * Null for "no receipt", and for a receipt of a pending block (no block number). ProviderFailure when the
 * answer is not a receipt.
 */
export function toReceipt(raw: unknown): Receipt | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ProviderFailure('malformed receipt');
  const r = raw as Record<string, unknown>;
  if (r.blockNumber === null || r.blockNumber === undefined) return null;
  const receipt: Mutable<Receipt> = {
    blockNumber: quantity(r.blockNumber, 'receipt').toString(),
    gasUsed: quantity(r.gasUsed, 'receipt').toString(),
  };
  const optional = (name: 'effectiveGasPrice' | 'gasPrice' | 'l1Fee'): void => {
    if (r[name] !== null && r[name] !== undefined) receipt[name] = quantity(r[name], 'receipt').toString();
  };
  optional('effectiveGasPrice');
  optional('gasPrice');
  optional('l1Fee');
  if (r.status !== null && r.status !== undefined) {
    const status = quantity(r.status, 'receipt');
    if (status !== 0n && status !== 1n) throw new ProviderFailure('malformed receipt');
    receipt.status = Number(status);
  }
  return receipt;
}
