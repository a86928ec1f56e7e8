import { InvalidTransitionError } from './errors';
import type { Mutable } from './mutable';
import type { Receipt, SendOutcome, SessionKind } from './journal/journal-event';
import type { TokenTransfer } from './sends/token-transfer';

/** `status` follows the send's own events only: queued, then parked, submitted, settled. */
export type SendStatus = 'queued' | 'parked' | 'submitted' | 'settled';
export const SEND_STATUSES: readonly SendStatus[] = ['queued', 'parked', 'submitted', 'settled'];
export const SEND_OUTCOMES: readonly SendOutcome[] = ['confirmed', 'reverted', 'dropped', 'expired', 'replaced'];

/**
 * Every send attempted, or that would have been sent (replay/test sessions). Its lifecycle fields change only
 * through the transitions below.
 */
export interface SendAttempt {
  readonly sendId: string;
  readonly runId: string;
  readonly stepRunId: string;
  readonly workflow: string;
  readonly session: SessionKind;
  readonly network: string;
  readonly chainId: number;
  readonly relayer: string;
  readonly status: SendStatus;
  readonly outcome: SendOutcome | null;
  readonly txHash: string | null;
  readonly idempotencyKey: string;
  readonly to: string;
  /** Native value the send moves, in wei. */
  readonly valueWei: bigint;
  /** The token transfer its call makes (CONTRACT 8.8); absent or null for any other send. */
  readonly tokenTransfer?: TokenTransfer | null;
  readonly receipt: Receipt | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Whether an outcome means the transaction landed on chain (it has a receipt and paid gas). */
export function landed(outcome: SendOutcome | null): boolean {
  return outcome === 'confirmed' || outcome === 'reverted';
}

// A send's lifecycle (CONTRACT 8.5): queued, then parked or submitted any number of times (a fee bump is
// another submitted of the same send), then settled; a reorg of its receipt's block submits it again (CONTRACT 8.6). A settled send takes no later park or submit, and its
// outcome and hash are final: the same terminal settle repeated (a crash and rerun, SPEC "States") is taken
// and changes nothing but the receipt it may carry (the ledger keeps one entry per step run and hash), while a
// settle naming another outcome or hash is refused.

/** The send waits (a nonce gap, a relayer slot); it keeps the hash it may have been submitted with. */
export function parkSend(send: SendAttempt, at: number): void {
  if (send.status === 'settled') throw settled(send, 'send.parked');
  const s = send as Mutable<SendAttempt>;
  s.status = 'parked';
  s.updatedAt = Math.max(send.updatedAt, at);
}

/** The send was signed and broadcast (or broadcast again, replaced) as `txHash`. */
export function submitSend(send: SendAttempt, txHash: string, at: number): void {
  if (send.status === 'settled') throw settled(send, 'send.submitted');
  const s = send as Mutable<SendAttempt>;
  s.status = 'submitted';
  s.txHash = txHash;
  s.updatedAt = Math.max(send.updatedAt, at);
}

/**
 * A reorg removed the block of the settled send's receipt (CONTRACT 8.6): it awaits `txHash` again (status
 * `submitted`, no outcome, no receipt) until it lands again or expires, and is settled anew then.
 */
export function reopenSend(send: SendAttempt, txHash: string, at: number): void {
  if (send.status !== 'settled' || send.txHash === null || send.txHash.toLowerCase() !== txHash.toLowerCase()) {
    throw new InvalidTransitionError(`send_id: a reorged send.submitted needs the send settled with tx_hash ${txHash} (it is ${send.status}${send.txHash ? ` with ${send.txHash}` : ''})`);
  }
  const s = send as Mutable<SendAttempt>;
  s.status = 'submitted';
  s.outcome = null;
  s.receipt = null;
  s.updatedAt = Math.max(send.updatedAt, at);
}

/** The send's terminal settle: its outcome, and the hash that landed and its receipt when named; or that settle repeated. */
export function settleSend(send: SendAttempt, outcome: SendOutcome, txHash: string | undefined, receipt: Receipt | undefined, at: number): void {
  if (send.status === 'settled' && (outcome !== send.outcome || (txHash && send.txHash && txHash !== send.txHash))) {
    throw settled(send, `second send.settled with ${outcome}${txHash && send.txHash && txHash !== send.txHash ? ' and another hash' : ''}`);
  }
  const s = send as Mutable<SendAttempt>;
  s.status = 'settled';
  s.outcome = outcome;
  if (txHash) s.txHash = txHash;
  if (receipt) s.receipt = receipt;
  s.updatedAt = Math.max(send.updatedAt, at);
}

function settled(send: SendAttempt, what: string): InvalidTransitionError {
  return new InvalidTransitionError(`send_id: the send already settled (${send.outcome}): a settled send takes no ${what}`);
}
