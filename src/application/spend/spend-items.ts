import type { LedgerEntry } from '../../domain/spend/ledger-entry';
import type { SpendGroup, SpendSummary, SpendTotals } from '../../domain/spend/spend-totals';
import { toIso } from '../../domain/time';

/** A ledger entry as the API, the CLI and the exports show it: SPEC's fields, amounts as decimal strings. */
export interface LedgerEntryItem {
  recorded_at: string;
  workflow: string;
  run_id: string;
  step_run_id: string;
  relayer: string;
  network: string;
  chain_id: number;
  tx_hash: string;
  gas_used: string;
  effective_gas_price: string;
  gas_spend_wei: string;
  value_wei: string;
  reverted: boolean;
  /** A reorg removed the entry's block (CONTRACT 8.6): it counts in no sum. */
  reorged: boolean;
}

export interface SpendTotalsItem {
  tx_count: number;
  gas_spend_wei: string;
  value_wei: string;
  reverted_count: number;
  reverted_gas_wei: string;
}
export interface SpendGroupItem extends SpendTotalsItem {
  key: string;
}

export interface SpendSummaryItem {
  by_workflow: SpendGroupItem[];
  by_relayer: SpendGroupItem[];
  by_network: SpendGroupItem[];
  total: SpendTotalsItem;
}

/**
 * Redaction of spend items: the names and ids (workflow, relayer, network, run and step run ids). Amounts,
 * hashes, times and chain ids are computed, not rendered text: a secret's digits inside a number are a
 * coincidence, and replacing them would corrupt an exact amount.
 */
export function redactEntryItem(item: LedgerEntryItem, redact: (text: string) => string): LedgerEntryItem {
  return {
    ...item, workflow: redact(item.workflow), relayer: redact(item.relayer), network: redact(item.network),
    run_id: redact(item.run_id), step_run_id: redact(item.step_run_id),
  };
}

export function redactSummaryItem(summary: SpendSummaryItem, redact: (text: string) => string): SpendSummaryItem {
  const groups = (list: SpendGroupItem[]): SpendGroupItem[] => list.map((g) => ({ ...g, key: redact(g.key) }));
  return { by_workflow: groups(summary.by_workflow), by_relayer: groups(summary.by_relayer), by_network: groups(summary.by_network), total: summary.total };
}

/** The spend CSV's columns, in SPEC's order: a stable contract. */
export const SPEND_CSV_COLUMNS: readonly (keyof LedgerEntryItem)[] = [
  'recorded_at', 'workflow', 'relayer', 'network', 'chain_id', 'tx_hash', 'gas_used', 'effective_gas_price',
  'gas_spend_wei', 'value_wei', 'reverted', 'run_id', 'step_run_id',
];

export function toLedgerEntryItem(e: LedgerEntry): LedgerEntryItem {
  return {
    recorded_at: toIso(e.recordedAt), workflow: e.workflow, run_id: e.runId, step_run_id: e.stepRunId,
    relayer: e.relayer, network: e.network, chain_id: e.chainId, tx_hash: e.txHash,
    gas_used: e.gasUsed.toString(), effective_gas_price: e.effectiveGasPrice.toString(),
    gas_spend_wei: e.gasSpendWei.toString(), value_wei: e.valueWei.toString(), reverted: e.reverted,
    reorged: e.reorged === true,
  };
}

export function toTotalsItem(t: SpendTotals): SpendTotalsItem {
  return {
    tx_count: t.txCount, gas_spend_wei: t.gasSpendWei.toString(), value_wei: t.valueWei.toString(),
    reverted_count: t.revertedCount, reverted_gas_wei: t.revertedGasWei.toString(),
  };
}

const toGroupItem = (g: SpendGroup): SpendGroupItem => ({ key: g.key, ...toTotalsItem(g) });

export function toSummaryItem(s: SpendSummary): SpendSummaryItem {
  return {
    by_workflow: s.byWorkflow.map(toGroupItem), by_relayer: s.byRelayer.map(toGroupItem),
    by_network: s.byNetwork.map(toGroupItem), total: toTotalsItem(s.total),
  };
}
