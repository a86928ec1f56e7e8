import { InvalidTransitionError } from './errors';
import type { Mutable } from './mutable';
import type { Decision } from './journal/journal-event';
import type { ApprovalStatus } from './run';

/** An approval a run asked for. It is decided once (approved, rejected or expired); the decision is final. */
/** The reason a cancel journals on the approvals it closes (decided `rejected` by the canceller): such reads as cancelled. */
export const CANCELLED_REASON = 'run cancelled';

export interface Approval {
  readonly approvalId: string;
  readonly runId: string;
  readonly stepRunId: string;
  readonly workflow: string;
  readonly status: ApprovalStatus;
  readonly message: string | null;
  readonly requestedAt: number;
  readonly expiresAt: number | null;
  readonly decidedAt: number | null;
  readonly decidedBy: string | null;
  readonly reason: string | null;
}

/** Decides a pending approval; one already decided refuses a second decision. */
export function decideApproval(approval: Approval, decision: Decision, by: string | null, reason: string | null, at: number): void {
  if (approval.status !== 'pending') {
    throw new InvalidTransitionError(`approval_id: the approval is already ${approval.status}: an approval is decided once`);
  }
  const a = approval as Mutable<Approval>;
  a.status = decision;
  a.decidedAt = at;
  a.decidedBy = by;
  a.reason = reason;
}
