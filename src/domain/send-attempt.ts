import type { Receipt, SendOutcome, SessionKind } from './journal/journal-event';

/** `status` follows the send's own events only: queued, then parked, submitted, settled. */
export type SendStatus = 'queued' | 'parked' | 'submitted' | 'settled';
export const SEND_STATUSES: readonly SendStatus[] = ['queued', 'parked', 'submitted', 'settled'];
export const SEND_OUTCOMES: readonly SendOutcome[] = ['confirmed', 'reverted', 'dropped', 'expired', 'replaced'];

/** Every send attempted, or that would have been sent (replay/test sessions). */
export interface SendAttempt {
  readonly sendId: string;
  readonly runId: string;
  readonly stepRunId: string;
  readonly workflow: string;
  readonly session: SessionKind;
  readonly network: string;
  readonly chainId: number;
  readonly relayer: string;
  status: SendStatus;
  outcome: SendOutcome | null;
  txHash: string | null;
  readonly idempotencyKey: string;
  readonly to: string;
  /** Native value the send moves, in wei. */
  readonly valueWei: bigint;
  receipt: Receipt | null;
  readonly createdAt: number;
  updatedAt: number;
}

/** Whether an outcome means the transaction landed on chain (it has a receipt and paid gas). */
export function landed(outcome: SendOutcome | null): boolean {
  return outcome === 'confirmed' || outcome === 'reverted';
}
