import { inject, injectable, optional } from 'inversify';
import { CANCELLED_REASON } from '../../domain/approval';
import { ConflictError, InvalidInputError, JournalRejectedError, NotFoundError } from '../../domain/errors';
import { isValidId } from '../../domain/ids';
import type { ErrorInfo, JournalEvent } from '../../domain/journal/journal-event';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { EngineMetrics, NO_ENGINE_METRICS } from '../ports/engine-metrics';
import { EngineStore } from '../ports/engine-store';
import { HistoryRepository } from '../ports/history-repository';
import { JournalWriter } from '../ports/journal-writer';
import { RunRepository } from '../ports/run-repository';
import { FinishSessions } from './finish-sessions';

/**
 * Ends a running or parked run `cancelled` (CONTRACT 8.4). Its pending approvals are closed as rejected (so none
 * stays listed as pending), and the run leaves the schedule; a process driving it stops at its next journal write.
 */
@injectable()
export class CancelRun {
  constructor(
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(HistoryRepository) private readonly history: HistoryRepository,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(EngineStore) private readonly store: EngineStore,
    @inject(Clock) private readonly clock: Clock,
    @inject(EngineMetrics) @optional() private readonly metrics: EngineMetrics = NO_ENGINE_METRICS,
    @inject(FinishSessions) @optional() private readonly sessions?: FinishSessions,
  ) {}

  /** `error`: why, when not an operator's cancel (a reorg removed the run's log: kind `reorged`). */
  async execute(runId: string, by: string, error?: ErrorInfo): Promise<{ run_id: string; status: 'cancelled' }> {
    if (!isValidId(runId)) throw new InvalidInputError('run_id', 'malformed run id');
    const run = await this.runs.get(runId);
    if (!run) throw new NotFoundError('run');
    if (run.status !== 'running' && run.status !== 'waiting') throw new ConflictError(`run already ${run.status}`);
    const at = toIso(this.clock.now());
    const pending = (await this.history.approvalsOfRuns([runId])).filter((a) => a.status === 'pending');
    const events: JournalEvent[] = pending.map((a) => ({
      type: 'approval.decided', at, approval_id: a.approvalId, decision: 'rejected', by, reason: CANCELLED_REASON,
    }));
    events.push({ type: 'run.finished', at, run_id: runId, status: 'cancelled', error: error ?? { kind: 'cancelled', message: `cancelled by ${by}` } });
    if (run.session === 'test' && run.sessionId) events.push({ type: 'session.finished', at, session_id: run.sessionId });
    try {
      await this.journal.append(events);
    } catch (err) {
      if (err instanceof JournalRejectedError) throw new ConflictError('run already ended');
      throw err;
    }
    this.metrics.runEnded(run.workflow, 'cancelled');
    await this.sessions?.afterRunEnded(run);
    await this.store.remove(runId);
    return { run_id: runId, status: 'cancelled' };
  }
}
