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
 * (step_run_id, tx_hash) so that a repeated terminal settle never counts twice. It copies what it needs
 * from the journal and has no link to it: pruning runs never touches the ledger.
 */
export interface LedgerEntry extends LandedSend {
  readonly txHash: string;
  readonly gasUsed: bigint;
  /** effectiveGasPrice of the receipt, or the legacy gasPrice where that is absent. */
  readonly effectiveGasPrice: bigint;
  /** gasUsed × effectiveGasPrice + l1Fee (when the receipt has one). */
  readonly gasSpendWei: bigint;
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
