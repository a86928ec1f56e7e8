import type { ApprovalStatus } from './run';

export interface Approval {
  readonly approvalId: string;
  readonly runId: string;
  readonly stepRunId: string;
  readonly workflow: string;
  status: ApprovalStatus;
  readonly message: string | null;
  readonly requestedAt: number;
  readonly expiresAt: number | null;
  decidedAt: number | null;
  decidedBy: string | null;
  reason: string | null;
}
