import { isValidId } from '../ids';

/** The synthetic workflow of top-up sends (SPEC, Spend ledger entry): its runs are attributed to the funding relayer. */
export const TOPUP_WORKFLOW = 'relayers.topup';

/**
 * How a top-up attempt ended, as the operator audit trail records it:
 * - `pending`: recorded before anything reached the chain and not completed yet (in progress, or its process died);
 * - `confirmed` / `reverted`: landed (a ledger entry exists under `relayers.topup`);
 * - `submitted`: broadcast, no receipt within the wait (its run waits on the transaction);
 * - `failed`: nothing was sent or nothing landed (refused by the node, no provider answered);
 * - `unknown`: an unexpected failure after the attempt began: check the run and the chain before trying again.
 */
export type TopupOutcome = 'pending' | 'confirmed' | 'reverted' | 'submitted' | 'failed' | 'unknown';
export const TOPUP_OUTCOMES: readonly TopupOutcome[] = ['pending', 'confirmed', 'reverted', 'submitted', 'failed', 'unknown'];

/** One row of the operator audit trail of top-ups (CONTRACT 9). Its id is the id of the top-up's run. */
export interface TopupAttempt {
  readonly topupId: string;
  /** When the attempt began (epoch ms). */
  readonly at: number;
  /** Who asked (`--by`, default the OS user). */
  readonly by: string;
  /** The funding relayer and its address. */
  readonly from: string;
  readonly fromAddress: string;
  /** The relayer funded and its address. */
  readonly to: string;
  readonly toAddress: string;
  readonly network: string;
  readonly chainId: number;
  readonly amountWei: bigint;
  readonly txHash: string | null;
  readonly outcome: TopupOutcome;
  readonly error: string | null;
}

/** What completes an attempt once it ended. */
export interface TopupResult {
  readonly outcome: Exclude<TopupOutcome, 'pending'>;
  readonly txHash: string | null;
  readonly error: string | null;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A new attempt, `pending`; refuses what no audit row may hold. */
export function newTopupAttempt(fields: Omit<TopupAttempt, 'outcome' | 'txHash' | 'error'>): TopupAttempt {
  if (!isValidId(fields.topupId)) throw new RangeError('top-up id: malformed');
  if (fields.amountWei <= 0n) throw new RangeError('top-up amount must be above zero');
  if (fields.from === fields.to) throw new RangeError('a relayer cannot top itself up');
  if (!ADDRESS.test(fields.fromAddress) || !ADDRESS.test(fields.toAddress)) throw new RangeError('top-up addresses must be 20-byte 0x-hex');
  if (!fields.by) throw new RangeError('a top-up names who asked for it');
  return { ...fields, txHash: null, outcome: 'pending', error: null };
}
