import { inject, injectable } from 'inversify';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { RunRepository } from '../ports/run-repository';

/**
 * Ends a replay session when its last run ends (CONTRACT 8.6 `session.finished`). Asked after each run of a session
 * ended, once that end is journaled: whichever run ends last then finds no other still going, so the session always
 * ends (two runs ending at once may both end it: the second only moves its end time). Every run of a replay is
 * journaled before any is scheduled (ReplayEvents), so the runs still going are those the projection says are.
 */
@injectable()
export class FinishSessions {
  constructor(
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Whether the end of a run of this session is to be followed by `afterRunEnded`: a replay session's. A test session
   * has one run, ended with it (DriveRun, CancelRun); a live run ends no session.
   */
  concerns(run: { readonly session: string; readonly sessionId: string | null | undefined }): boolean {
    return run.session === 'replay' && !!run.sessionId;
  }

  async afterRunEnded(run: { readonly session: string; readonly sessionId: string | null | undefined }): Promise<void> {
    if (!this.concerns(run) || !run.sessionId) return;
    for (const status of ['running', 'waiting'] as const) {
      if ((await this.runs.list({ sessionId: run.sessionId, status }, { limit: 1 })).length > 0) return;
    }
    await this.journal.append([{ type: 'session.finished', at: toIso(this.clock.now()), session_id: run.sessionId }]);
  }
}
