import { Args, Flags } from '@oclif/core';
import { DecideApproval } from '../../../../application/engine/decide-approval.use-case';
import { ChainflowCommand } from '../../base.command';
import { osUser } from '../run';

/** `chainflow approvals approve ID [--reason T] [--by NAME]` (and `reject`, its subclass). */
export default class ApprovalsApprove extends ChainflowCommand {
  static override summary = 'Approve a pending approval (the parked run goes on)';
  static override args = { id: Args.string({ required: true, description: 'approval id (<run_id>.<step_id>), or a run id when that run has one pending approval' }) };
  static override flags = {
    reason: Flags.string({ description: 'why (shown with the decision)' }),
    by: Flags.string({ description: 'who decides (default: the OS user)' }),
    json: Flags.boolean({ description: 'print the decision as JSON' }),
  };

  protected readonly decision: 'approved' | 'rejected' = 'approved';

  async run(): Promise<void> {
    const { args, flags } = await this.parse(this.constructor as typeof ApprovalsApprove);
    const root = await this.root(flags.config);
    const decided = await root.container.get(DecideApproval).execute({
      approvalId: args.id, orRunId: true, decision: this.decision, by: flags.by ?? osUser(), ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
    });
    this.log(flags.json ? JSON.stringify(decided) : `approval ${decided.approval_id} ${decided.status} by ${decided.decided_by} (run ${decided.run_id})`);
  }
}
