import { decideApproval } from '../../approval';
import { assertRunOpen } from '../../run';
import { msOrNull, type Reducers } from './fold';

/**
 * Approvals: requested by a run that has not finished, decided once. A decision may come after its run ended
 * (it closes an approval the run left pending); it cannot move the run, which only a run.resumed does.
 */
export const APPROVAL_REDUCERS: Pick<Reducers, 'approval.requested' | 'approval.decided'> = {
  'approval.requested': (f, e) => {
    const run = f.run(e.run_id);
    assertRunOpen(run, e.type);
    if (f.ws.approvals.has(e.approval_id)) f.refuse('approval_id: this approval is already requested (an approval.requested with other content)');
    f.ws.approvals.set(e.approval_id, {
      approvalId: e.approval_id, runId: e.run_id, stepRunId: e.step_run_id, workflow: run.workflow,
      status: 'pending', message: e.message ?? null, requestedAt: f.at, expiresAt: msOrNull(e.expires_at),
      decidedAt: null, decidedBy: null, reason: null,
    });
    f.ch.approvals.add(e.approval_id);
    run.approvalStatus = 'pending';
    f.touch(run);
  },
  'approval.decided': (f, e) => {
    // The projector resolved the approval before (it names the event's stream).
    const approval = f.ws.approvals.get(e.approval_id)!;
    decideApproval(approval, e.decision, e.by ?? null, e.reason ?? null, f.at);
    f.ch.approvals.add(approval.approvalId);
    const run = f.run(approval.runId);
    run.approvalStatus = e.decision;
    f.touch(run);
  },
};
