import { inject, injectable } from 'inversify';
import { ConflictError, InvalidInputError, JournalRejectedError, NotFoundError } from '../../domain/errors';
import { CANCELLED_REASON, type Approval } from '../../domain/approval';
import { isValidId } from '../../domain/ids';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { JournalWriter } from '../ports/journal-writer';

export interface ApprovalDecision {
  readonly approvalId: string;
  readonly decision: 'approved' | 'rejected';
  /** Who decided: the OS user (CLI) or the named bearer (API). */
  readonly by: string;
  readonly reason?: string;
  /**
   * The id may name a run instead (the CLI: `approvals approve RUN_ID`): its one pending approval is decided; a run
   * with none or several is refused with the ids that are pending. Default false (the API takes approval ids only).
   */
  readonly orRunId?: boolean;
}

/** How approval ids are made, for the hints of a refused id. */
const ID_FORMAT = 'approval ids are <run_id>.<step_id>';

/** The longest approval `reason`, in characters (the API states it in its body schema). */
export const MAX_REASON = 2000;

/**
 * Decides a pending approval (CONTRACT 8.4); the parked run is woken to go on, in the same transaction as the
 * decision (a death between the two would leave a decided run parked until its approval's expiry). Decided or
 * expired already: conflict.
 */
@injectable()
export class DecideApproval {
  constructor(
    @inject(HistoryRepository) private readonly history: HistoryRepository,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(req: ApprovalDecision): Promise<{ approval_id: string; run_id: string; status: string; decided_by: string; reason: string | null }> {
    if (!isValidId(req.approvalId)) throw new InvalidInputError('approval_id', 'malformed approval id');
    if (req.decision !== 'approved' && req.decision !== 'rejected') throw new InvalidInputError('decision', 'must be approve or reject');
    if (req.reason !== undefined && (typeof req.reason !== 'string' || req.reason.length > MAX_REASON)) {
      throw new InvalidInputError('reason', `must be text of at most ${MAX_REASON} characters`);
    }
    const approval = await this.find(req);
    if (approval.status !== 'pending') throw new ConflictError(alreadyClosed(approval));
    const now = this.clock.now();
    if (approval.expiresAt !== null && approval.expiresAt <= now) throw new ConflictError('approval expired');
    try {
      await this.journal.append([{
        type: 'approval.decided', at: toIso(now), approval_id: approval.approvalId, decision: req.decision, by: req.by,
        ...(req.reason ? { reason: req.reason } : {}),
      }], { wake: { runId: approval.runId, at: now } });
    } catch (err) {
      // Decided (or its run ended) between our read and our write.
      if (err instanceof JournalRejectedError) throw new ConflictError('approval already decided');
      throw err;
    }
    return { approval_id: approval.approvalId, run_id: approval.runId, status: req.decision, decided_by: req.by, reason: req.reason ?? null };
  }

  /** The approval `req` names: by its id, or (orRunId) the one pending approval of the run it names. */
  private async find(req: ApprovalDecision): Promise<Approval> {
    const [approval] = await this.history.listApprovals({ equals: { approval_id: req.approvalId } }, { limit: 1 });
    if (approval) return approval;
    if (!req.orRunId) throw new NotFoundError('approval');
    const ofRun = await this.history.approvalsOfRuns([req.approvalId]);
    const pending = ofRun.filter((a) => a.status === 'pending');
    if (pending.length === 1) return pending[0]!;
    if (ofRun.length === 0) throw new NotFoundError('approval', undefined, `${ID_FORMAT} (a run id is taken when its run has exactly one pending approval)`);
    if (pending.length === 0) {
      // Its only approval closed: said as it would be of that approval itself (cancelled, expired, decided).
      if (ofRun.length === 1) return ofRun[0]!;
      throw new ConflictError(`run ${req.approvalId} has no pending approval; ${ID_FORMAT}: ${ofRun.map((a) => `${a.approvalId} (${a.status})`).join(', ')}`);
    }
    throw new ConflictError(`run ${req.approvalId} has ${pending.length} pending approvals; ${ID_FORMAT}: ${pending.map((a) => a.approvalId).join(', ')}`);
  }
}

/** Why a closed approval takes no decision; one closed by its run's cancel says so, not "already rejected". */
function alreadyClosed(approval: Approval): string {
  if (approval.status === 'rejected' && approval.reason === CANCELLED_REASON) {
    return `approval closed: its run was cancelled${approval.decidedBy ? ` by ${approval.decidedBy}` : ''}`;
  }
  return `approval already ${approval.status}`;
}
