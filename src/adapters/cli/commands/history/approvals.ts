import { Flags } from '@oclif/core';
import type { ApprovalItem } from '../../../../application/history/items';
import { ListApprovals } from '../../../../application/history/list-approvals.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';

/** `chainflow history approvals [--all]`: pending approvals; with --all every decision too. */
export default class HistoryApprovals extends ListCommand<ApprovalItem> {
  static override summary = 'List pending approvals (--all: every decision, who and why)';
  static override flags = {
    all: Flags.boolean({ description: 'every approval, decided ones included' }),
    workflow: Flags.string({ description: 'workflow name' }),
    status: Flags.string({ description: 'pending, approved, rejected or expired' }),
    since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
    until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  protected readonly queryFlags = ['workflow', 'status', 'since', 'until'];
  protected readonly empty = 'no approvals';
  protected readonly columns: readonly Column<ApprovalItem>[] = [
    ['APPROVAL', (a) => a.approval_id], ['RUN', (a) => a.run_id], ['WORKFLOW', (a) => a.workflow], ['STATUS', (a) => a.status],
    // What the approver is asked: without it the table says only that something waits.
    ['MESSAGE', (a) => a.message], ['REQUESTED', (a) => a.requested_at], ['EXPIRES', (a) => a.expires_at], ['DECIDED BY', (a) => a.decided_by], ['WHY', (a) => a.reason],
  ];

  protected override defaults(flags: Record<string, unknown>): Record<string, unknown> {
    return flags.all || flags.status !== undefined ? {} : { status: 'pending' };
  }

  protected useCase(): typeof ListApprovals {
    return ListApprovals;
  }
}
