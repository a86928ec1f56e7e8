import ApprovalsApprove from './approve';

/** `chainflow approvals reject ID [--reason T] [--by NAME]`. */
export default class ApprovalsReject extends ApprovalsApprove {
  static override summary = 'Reject a pending approval (the parked run fails with approval_rejected)';
  protected override readonly decision = 'rejected' as const;
}
