import { inject, injectable } from 'inversify';
import type { JournalEvent, SendSettled } from '../../domain/journal/journal-event';
import { TOPUP_WORKFLOW, type TopupResult } from '../../domain/relayers/topup';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { TopupAudit } from '../ports/topup-audit';
import type { UnattendedRuns } from '../ports/unattended-runs';

/**
 * A top-up whose receipt did not come within its wait leaves its run parked on the transaction and its audit row
 * `submitted`. No engine resumes that run (it is no configured workflow): when the send watcher settles its send,
 * this ends the run (in the settle's own append) and completes the audit row with how the transfer ended.
 */
@injectable()
export class TopupSettlement implements UnattendedRuns {
  constructor(
    @inject(TopupAudit) private readonly audit: TopupAudit,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** The events that end the run of `stream` after `settled`: none unless it is a top-up run parked on its send. */
  ending(stream: readonly JournalEvent[], settled: SendSettled): JournalEvent[] {
    const started = stream.find((e) => e.type === 'run.started');
    if (started?.type !== 'run.started' || started.workflow !== TOPUP_WORKFLOW) return [];
    const last = [...stream].reverse().find((e) => e.type === 'run.parked' || e.type === 'run.resumed' || e.type === 'run.finished');
    if (last?.type !== 'run.parked' || last.wait_kind !== 'tx' || !last.step_run_id) return [];
    const runId = started.run_id;
    const at = toIso(this.clock.now());
    const error = errorOf(settled);
    return [
      { type: 'run.resumed', at, run_id: runId },
      { type: 'step.finished', at, run_id: runId, step_run_id: last.step_run_id, status: error ? 'failed' : 'succeeded', ...(error ? { error } : {}) },
      { type: 'run.finished', at, run_id: runId, status: error ? 'failed' : 'succeeded', ...(error ? { error } : {}) },
    ];
  }

  /** Completes the top-up's audit row (it was `submitted`) once `ending` ended its run. */
  async complete(runId: string, settled: SendSettled): Promise<void> {
    const error = errorOf(settled);
    const result: TopupResult = {
      outcome: settled.outcome === 'confirmed' ? 'confirmed' : settled.outcome === 'reverted' ? 'reverted' : 'failed',
      txHash: settled.tx_hash ?? null,
      error: error?.message ?? null,
    };
    await this.audit.complete(runId, result);
  }
}

function errorOf(settled: SendSettled): { kind: string; message: string } | undefined {
  if (settled.outcome === 'confirmed') return undefined;
  if (settled.outcome === 'reverted') return { kind: 'reverted', message: settled.tx_hash ? `transaction ${settled.tx_hash} reverted` : 'the transfer reverted' };
  return { kind: settled.outcome, message: `the transfer did not land (${settled.outcome})` };
}
