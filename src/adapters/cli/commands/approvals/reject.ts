import ApprovalsApprove from './approve';

/** `chainflow approvals reject ID [--reason T] [--by NAME]`. */
export default class ApprovalsReject extends ApprovalsApprove {
  // oclif reads a command's options as own properties (it spreads the class): inherited ones would be lost.
  static override args = ApprovalsApprove.args;
  static override flags = ApprovalsApprove.flags;
  static override summary = 'Reject a pending approval (the parked run fails with approval_rejected)';
  protected override readonly decision = 'rejected' as const;
}
