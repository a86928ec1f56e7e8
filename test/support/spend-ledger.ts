/**
 * Test support for the spend ledger's end-to-end tests (HTTP and CLI): landed sends described once, their
 * journal events (through the run mother), and what the ledger must say about them, computed by hand with
 * BigInt from the described receipt (SPEC: Spend ledger entry, Spend summary group).
 */
import type { JournalEvent, SendOutcome } from '../../src/domain/journal/journal-event';
import { aRun, aTxHash, iso } from '../mothers/journal-events';

/** SPEC's entry fields, plus gas_used and effective_gas_price (CONTRACT section 4) and reorged (CONTRACT 8.6). */
export const ENTRY_FIELDS = [
  'recorded_at', 'workflow', 'run_id', 'step_run_id', 'relayer', 'network', 'chain_id', 'tx_hash',
  'gas_used', 'effective_gas_price', 'gas_spend_wei', 'value_wei', 'reverted', 'reorged',
].sort();
/** SPEC's summary group fields; `total` has them all but `key`. */
export const TOTAL_FIELDS = ['tx_count', 'gas_spend_wei', 'value_wei', 'reverted_count', 'reverted_gas_wei'].sort();
export const GROUP_FIELDS = ['key', ...TOTAL_FIELDS].sort();
export const SUMMARY_FIELDS = ['by_workflow', 'by_relayer', 'by_network', 'total'].sort();

/** The spend CSV header: a stable contract (SPEC: CLI), pinned here character for character. */
export const SPEND_CSV_HEADER =
  'recorded_at,workflow,relayer,network,chain_id,tx_hash,gas_used,effective_gas_price,gas_spend_wei,value_wei,reverted,run_id,step_run_id';

export interface ReceiptSpec {
  readonly gasUsed: string;
  readonly effectiveGasPrice?: string;
  readonly gasPrice?: string;
  readonly l1Fee?: string;
}

/** One send that reached a terminal settle. */
export interface SendSpec {
  readonly runId: string;
  readonly workflow: string;
  readonly relayer: string;
  readonly network: string;
  readonly chainId: number;
  /** When the run started (epoch ms); the settle comes a few seconds later. */
  readonly at: number;
  readonly outcome: SendOutcome;
  readonly valueWei: string;
  /** Absent: the settle carries no receipt at all (a receipt read is owed). */
  readonly receipt?: ReceiptSpec;
}

export interface EntryJson {
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
  reorged: boolean;
}

export interface TotalsJson {
  tx_count: number;
  gas_spend_wei: string;
  value_wei: string;
  reverted_count: number;
  reverted_gas_wei: string;
}
export interface GroupJson extends TotalsJson {
  key: string;
}
export interface SummaryJson {
  by_workflow: GroupJson[];
  by_relayer: GroupJson[];
  by_network: GroupJson[];
  total: TotalsJson;
}
export interface SpendJson {
  summary: SummaryJson;
  entries: EntryJson[];
}

export const txHashOf = (s: SendSpec): string => aTxHash(s.runId);

/** The whole event list of the run of a send (run.started ... send.settled ... run.finished). */
export function sendRun(s: SendSpec): JournalEvent[] {
  const events = aRun({
    runId: s.runId, workflow: s.workflow, at: s.at,
    send: {
      network: s.network, chainId: s.chainId, relayer: s.relayer, valueWei: s.valueWei, outcome: s.outcome,
      txHash: txHashOf(s), receipt: s.receipt ?? { gasUsed: '0' },
    },
  });
  if (s.receipt) return events;
  return events.map((e) => {
    if (e.type !== 'send.settled') return e;
    const { receipt: _receipt, ...rest } = e;
    return rest as JournalEvent;
  });
}

/** The `at` of the send's terminal settle: the entry's recorded_at (CONTRACT section 3). */
export function settleAt(s: SendSpec): string {
  const settle = sendRun(s).find((e) => e.type === 'send.settled');
  if (!settle) throw new Error(`no settle in run ${s.runId}`);
  return iso(settle.at);
}

/**
 * Whether the send landed with gas numbers in its journaled receipt: it must have exactly one entry. An expired send
 * whose settle has a receipt is one whose zero-value cancel landed: the cancel's gas is its entry (CONTRACT 8.5).
 */
export function landsWithGas(s: SendSpec): boolean {
  return (s.outcome === 'confirmed' || s.outcome === 'reverted' || s.outcome === 'expired')
    && s.receipt !== undefined && (s.receipt.effectiveGasPrice !== undefined || s.receipt.gasPrice !== undefined);
}

/** The ledger entry a landed send must produce, by hand: gasUsed × (effectiveGasPrice or gasPrice) + l1Fee. */
export function expectedEntry(s: SendSpec): EntryJson {
  const r = s.receipt!;
  const gasUsed = BigInt(r.gasUsed);
  const price = BigInt(r.effectiveGasPrice ?? r.gasPrice!);
  const l1 = r.l1Fee === undefined ? 0n : BigInt(r.l1Fee);
  const reverted = s.outcome === 'reverted';
  return {
    recorded_at: settleAt(s), workflow: s.workflow, run_id: s.runId, step_run_id: `${s.runId}.submit_tx`,
    relayer: s.relayer, network: s.network, chain_id: s.chainId, tx_hash: txHashOf(s),
    gas_used: gasUsed.toString(), effective_gas_price: price.toString(), gas_spend_wei: (gasUsed * price + l1).toString(),
    value_wei: reverted || s.outcome === 'expired' ? '0' : BigInt(s.valueWei).toString(), reverted, reorged: false,
  };
}

function totalsOf(entries: readonly EntryJson[]): TotalsJson {
  let gas = 0n;
  let value = 0n;
  let revertedGas = 0n;
  let reverted = 0;
  for (const e of entries) {
    gas += BigInt(e.gas_spend_wei);
    value += BigInt(e.value_wei);
    if (e.reverted) {
      reverted += 1;
      revertedGas += BigInt(e.gas_spend_wei);
    }
  }
  return { tx_count: entries.length, gas_spend_wei: gas.toString(), value_wei: value.toString(), reverted_count: reverted, reverted_gas_wei: revertedGas.toString() };
}

function groupsOf(entries: readonly EntryJson[], dim: 'workflow' | 'relayer' | 'network'): GroupJson[] {
  const keys = [...new Set(entries.map((e) => e[dim]))].sort();
  return keys.map((key) => ({ key, ...totalsOf(entries.filter((e) => e[dim] === key)) }));
}

/** The summary over these entries, each group list sorted by key (the order SPEC leaves open is not tested). */
export function expectedSummary(entries: readonly EntryJson[]): SummaryJson {
  return {
    by_workflow: groupsOf(entries, 'workflow'), by_relayer: groupsOf(entries, 'relayer'),
    by_network: groupsOf(entries, 'network'), total: totalsOf(entries),
  };
}

/** A summary as answered, with each group list sorted by key, to compare with `expectedSummary`. */
export function sortedSummary(summary: SummaryJson): SummaryJson {
  const sort = (groups: GroupJson[]): GroupJson[] => [...groups].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { ...summary, by_workflow: sort(summary.by_workflow), by_relayer: sort(summary.by_relayer), by_network: sort(summary.by_network) };
}

/** Newest first, as `entries` lists them (recorded_at descending). */
export function newestFirst(entries: readonly EntryJson[]): EntryJson[] {
  return [...entries].sort((a, b) => (a.recorded_at < b.recorded_at ? 1 : a.recorded_at > b.recorded_at ? -1 : 0));
}
