import type { TxReceipt } from '../../domain/chain/tx-receipt';
import { ProviderFailure, quantity } from './json-rpc';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A node's `eth_getTransactionReceipt` result (0x-hex quantities) as the domain's TxReceipt: bigints, status a
 * boolean. Fields the node does not report stay absent (pre-London nodes have no effectiveGasPrice; `l1Fee` only on
 * OP-stack chains). Null for "no receipt", and for a receipt of a pending block (no block number). ProviderFailure
 * when the answer is not a receipt, or has no status (a pre-Byzantium receipt cannot tell a revert).
 */
export function toReceipt(raw: unknown): TxReceipt | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ProviderFailure('malformed receipt');
  const r = raw as Record<string, unknown>;
  if (r.blockNumber === null || r.blockNumber === undefined) return null;
  if (r.status === null || r.status === undefined) throw new ProviderFailure('malformed receipt');
  const status = quantity(r.status, 'receipt');
  if (status !== 0n && status !== 1n) throw new ProviderFailure('malformed receipt');
  const receipt: Mutable<TxReceipt> = {
    status: status === 1n,
    blockNumber: quantity(r.blockNumber, 'receipt'),
    gasUsed: quantity(r.gasUsed, 'receipt'),
  };
  if (typeof r.blockHash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(r.blockHash)) receipt.blockHash = r.blockHash.toLowerCase();
  for (const name of ['effectiveGasPrice', 'gasPrice', 'l1Fee'] as const) {
    if (r[name] !== null && r[name] !== undefined) receipt[name] = quantity(r[name], 'receipt');
  }
  return receipt;
}
