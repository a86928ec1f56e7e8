import type { Receipt } from '../journal/journal-event';
import type { SendAttempt } from '../send-attempt';
import { weiDecimalOrUndefined } from '../wei';

/** Workflow name of the ledger entries of relayer top-ups (attributed to the funding relayer). */
export const TOPUP_WORKFLOW = 'relayers.topup';

/** Largest amount the ledger holds: a uint256. */
export const MAX_UINT256 = (1n << 256n) - 1n;

/** Where a landed send comes from, copied from the journal when its settle is applied. */
interface LandedSend {
  /** When the entry was recorded: the `at` of the terminal settle (ms since the epoch). */
  readonly recordedAt: number;
  readonly workflow: string;
  readonly runId: string;
  readonly stepRunId: string;
  readonly relayer: string;
  readonly network: string;
  readonly chainId: number;
  /** Native value moved: the journaled send value, zero when reverted. */
  readonly valueWei: bigint;
  readonly reverted: boolean;
}

/**
 * One landed send, as the spend ledger records it (SPEC, Spend ledger entry). Append-only; keyed by
 * (step_run_id, tx_hash) among the entries that count, so that a repeated terminal settle never counts twice (a
 * reorged entry no longer counts: the transaction landing again writes a new one). It copies what it needs
 * from the journal and has no link to it: pruning runs never touches the ledger.
 */
export interface LedgerEntry extends LandedSend {
  readonly txHash: string;
  readonly gasUsed: bigint;
  /** effectiveGasPrice of the receipt, or the legacy gasPrice where that is absent. */
  readonly effectiveGasPrice: bigint;
  /** gasUsed × effectiveGasPrice + l1Fee (when the receipt has one). */
  readonly gasSpendWei: bigint;
  /** The receipt's block, when the receipt named it (a reorg that removes it finds the entry by it). */
  readonly blockNumber?: bigint | null;
  readonly blockHash?: string | null;
  /**
   * A reorg removed the entry's block (CONTRACT 8.6): the entry stays, shown `reorged: true`, and counts in no sum.
   * Absent or false: it counts.
   */
  readonly reorged?: boolean;
}

/** A landed send whose receipt (as journaled) has no gas numbers: one receipt read must complete it. */
export interface PendingReceipt extends LandedSend {
  /** Null when the settle named no transaction hash (the entry can then never be completed). */
  readonly txHash: string | null;
}

/** A receipt number: a decimal or 0x-hex string (or a safe integer). Undefined when absent or malformed. */
export function receiptNumber(value: string | number | undefined): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  return weiDecimalOrUndefined(value);
}

/** The gas numbers of a receipt, or undefined when it lacks gasUsed or any gas price. */
export function gasNumbers(receipt: Receipt | null | undefined): { gasUsed: bigint; price: bigint; l1Fee: bigint } | undefined {
  if (!receipt) return undefined;
  const gasUsed = receiptNumber(receipt.gasUsed);
  const price = receiptNumber(receipt.effectiveGasPrice) ?? receiptNumber(receipt.gasPrice);
  if (gasUsed === undefined || price === undefined) return undefined;
  return { gasUsed, price, l1Fee: receiptNumber(receipt.l1Fee) ?? 0n };
}

/** What a terminal settle of a landed send leaves for the ledger: an entry, or a receipt still to read. */
export type LandedSettle =
  | { readonly kind: 'entry'; readonly entry: LedgerEntry }
  | { readonly kind: 'pending'; readonly pending: PendingReceipt };

/**
 * A reorg removed the block of a landed send's receipt (CONTRACT 8.6): its entry (the one of `removedBlockHash`, or
 * one that named no block) stays, shown `reorged: true`, and counts in no sum from `at` (epoch ms) on.
 */
export interface LedgerReorg {
  readonly stepRunId: string;
  readonly txHash: string;
  readonly removedBlockHash: string;
  readonly at: number;
}

/** What an append leaves for the spend ledger, in the order its events came: a settle's share, or a reorg's. */
export type LedgerChange = LandedSettle | { readonly kind: 'reorged'; readonly reorg: LedgerReorg };

/** The entry of a pending send once its receipt is known; undefined when the receipt has no gas numbers. */
export function completeEntry(pending: PendingReceipt, receipt: Receipt | null): LedgerEntry | undefined {
  const gas = gasNumbers(receipt);
  if (!gas || pending.txHash === null) return undefined;
  const gasSpendWei = gas.gasUsed * gas.price + gas.l1Fee;
  if (gasSpendWei > MAX_UINT256) return undefined;
  return {
    recordedAt: pending.recordedAt, workflow: pending.workflow, runId: pending.runId, stepRunId: pending.stepRunId,
    relayer: pending.relayer, network: pending.network, chainId: pending.chainId, txHash: pending.txHash,
    gasUsed: gas.gasUsed, effectiveGasPrice: gas.price, gasSpendWei,
    valueWei: pending.reverted ? 0n : pending.valueWei, reverted: pending.reverted,
    ...knownBlock(receipt),
  };
}

/** The receipt's block fields of an entry: those the receipt names. */
function knownBlock(receipt: Receipt | null): { blockNumber?: bigint; blockHash?: string } {
  const { blockNumber, blockHash } = receiptBlock(receipt);
  return { ...(blockNumber === null ? {} : { blockNumber }), ...(blockHash === null ? {} : { blockHash }) };
}

/** The block a receipt names (number and hash, each null when absent or malformed). */
export function receiptBlock(receipt: Receipt | null | undefined): { blockNumber: bigint | null; blockHash: string | null } {
  const hash = receipt?.blockHash;
  return {
    blockNumber: receiptNumber(receipt?.blockNumber) ?? null,
    blockHash: typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash) ? hash.toLowerCase() : null,
  };
}

/**
 * The ledger's share of the terminal settle of a landed send (outcome confirmed or reverted): the entry,
 * from the journaled receipt when it has gas numbers, else a pending receipt read. Sends of replay and
 * test sessions never reach a chain, so they never spend.
 */
export function landedSettle(send: SendAttempt, receipt: Receipt | null, recordedAt: number): LandedSettle | undefined {
  if (send.session !== 'live') return undefined;
  // An expired send whose zero-value cancel landed (CONTRACT 8.5): the cancel's gas is the send's spend, nothing moved.
  const cancelled = send.outcome === 'expired' && gasNumbers(receipt) !== undefined && send.txHash !== null;
  if (send.outcome !== 'confirmed' && send.outcome !== 'reverted' && !cancelled) return undefined;
  const pending: PendingReceipt = {
    recordedAt, workflow: send.workflow, runId: send.runId, stepRunId: send.stepRunId, relayer: send.relayer,
    network: send.network, chainId: send.chainId, txHash: send.txHash, valueWei: cancelled ? 0n : send.valueWei,
    reverted: send.outcome === 'reverted',
  };
  const entry = completeEntry(pending, receipt);
  return entry ? { kind: 'entry', entry } : { kind: 'pending', pending };
}
