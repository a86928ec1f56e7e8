import { inject, injectable } from 'inversify';
import { ConflictError, InvalidInputError, JournalRejectedError, NotFoundError } from '../../domain/errors';
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
}

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
    const [approval] = await this.history.listApprovals({ equals: { approval_id: req.approvalId } }, { limit: 1 });
    if (!approval) throw new NotFoundError('approval');
    if (approval.status !== 'pending') throw new ConflictError(`approval already ${approval.status}`);
    const now = this.clock.now();
    if (approval.expiresAt !== null && approval.expiresAt <= now) throw new ConflictError('approval expired');
    try {
      await this.journal.append([{
        type: 'approval.decided', at: toIso(now), approval_id: req.approvalId, decision: req.decision, by: req.by,
        ...(req.reason ? { reason: req.reason } : {}),
      }], { wake: { runId: approval.runId, at: now } });
    } catch (err) {
      // Decided (or its run ended) between our read and our write.
      if (err instanceof JournalRejectedError) throw new ConflictError('approval already decided');
      throw err;
    }
    return { approval_id: req.approvalId, run_id: approval.runId, status: req.decision, decided_by: req.by, reason: req.reason ?? null };
  }
}
