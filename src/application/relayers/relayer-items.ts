import type { TopupAttempt } from '../../domain/relayers/topup';
import { toIso } from '../../domain/time';
import type { RelayerStatus } from './relayer-book';

/** A row of the address book (CONTRACT section 4): amounts as decimal strings of wei, null where unknown. */
export interface RelayerItem {
  relayer: string;
  network: string;
  chain_id: number | null;
  address: string | null;
  balance_wei: string | null;
  balance_error: string | null;
  low_balance: boolean | null;
  low_balance_threshold_wei: string | null;
  recent_gas_spend_wei: string;
  funding_estimate_wei: string;
  shortfall_wei: string | null;
  explorer_url: string | null;
}

/** A row of the top-up audit trail (CONTRACT 9), with the relayers' addresses, the chain id, the run and the explorer link beside. */
export interface TopupItem {
  topup_id: string;
  at: string;
  by: string;
  from: string;
  to: string;
  network: string;
  amount_wei: string;
  tx_hash: string | null;
  outcome: string;
  error: string | null;
  chain_id: number;
  from_address: string;
  to_address: string;
  /** The top-up's run (workflow relayers.topup): its id is the top-up's. */
  run_id: string;
  explorer_url: string | null;
}

const wei = (v: bigint | null): string | null => (v === null ? null : v.toString());

/**
 * Redaction: names and texts (relayer, network, who, errors), not amounts, addresses or hashes (computed values:
 * a secret's digits inside one are a coincidence, as for spend items).
 */
export function toRelayerItem(s: RelayerStatus, explorerUrl: string | null, redact: (text: string) => string): RelayerItem {
  return {
    relayer: redact(s.relayer),
    network: redact(s.network),
    chain_id: s.chainId,
    address: s.address,
    balance_wei: wei(s.balanceWei),
    balance_error: s.balanceError === null ? null : redact(s.balanceError),
    low_balance: s.plan.lowBalance,
    low_balance_threshold_wei: wei(s.thresholdWei),
    recent_gas_spend_wei: s.recentGasWei.toString(),
    funding_estimate_wei: s.plan.estimateWei.toString(),
    shortfall_wei: wei(s.plan.shortfallWei),
    explorer_url: explorerUrl,
  };
}

export function toTopupItem(t: TopupAttempt, explorerUrl: string | null, redact: (text: string) => string): TopupItem {
  return {
    topup_id: t.topupId,
    at: toIso(t.at),
    by: redact(t.by),
    from: redact(t.from),
    to: redact(t.to),
    network: redact(t.network),
    amount_wei: t.amountWei.toString(),
    tx_hash: t.txHash,
    outcome: t.outcome,
    error: t.error === null ? null : redact(t.error),
    chain_id: t.chainId,
    from_address: t.fromAddress,
    to_address: t.toAddress,
    run_id: t.topupId,
    explorer_url: explorerUrl,
  };
}
