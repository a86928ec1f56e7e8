import type { JournalEvent } from '../../domain/journal/journal-event';
import { ConflictError, NotFoundError } from '../../domain/errors';
import { toIso } from '../../domain/time';
import type { EventCursors, ReorgResponse } from '../ports/event-cursors';
import type { JournalWriter } from '../ports/journal-writer';
import type { Logger } from '../ports/logger';
import type { RunRepository } from '../ports/run-repository';
import type { CancelRun } from './cancel-run.use-case';

/**
 * Journals the responses a roll back recorded (CONTRACT 8.6): `reorg.response` against the affected run, and ends
 * that run `cancelled` / `reorged` when it is still running or parked. A response stays pending in storage until it
 * is journaled: a crash in between journals it again at the next poll, and the journal keeps one (the event is the
 * same, to its time: a repeat is a duplicate). A run whose start no engine has journaled yet (its log run was
 * enqueued, not yet claimed) is answered once it is: it is due at once.
 */
export class AnswerReorgs {
  constructor(
    private readonly cursors: EventCursors,
    private readonly runs: RunRepository,
    private readonly journal: JournalWriter,
    private readonly cancel: CancelRun | undefined,
    private readonly logger: Logger,
  ) {}

  async answer(network: string): Promise<void> {
    for (const response of await this.cursors.pendingResponses(network)) {
      const run = await this.runs.get(response.runId);
      if (!run) continue;
      await this.journal.append([responseEvent(response)]);
      if (run.status === 'running' || run.status === 'waiting') await this.cancelRun(response);
      await this.cursors.responseJournaled(response.reorgId);
    }
  }

  private async cancelRun(response: ReorgResponse): Promise<void> {
    if (!this.cancel) return;
    try {
      await this.cancel.execute(response.runId, 'reorg', {
        kind: 'reorged', message: `a reorg of ${response.depth} block(s) removed block ${response.block} (${response.removedBlockHash}) holding the run's log`,
      });
    } catch (err) {
      // It ended meanwhile (or another process cancelled it): the response stands.
      if (err instanceof ConflictError || err instanceof NotFoundError) return;
      throw err;
    }
    this.logger.warn('run cancelled: a reorg removed its log', { run_id: response.runId, workflow: response.workflow, error_kind: 'reorged' });
  }
}

/** The journal's `reorg.response` for a recorded response: the same event each time it is made. */
export function responseEvent(r: ReorgResponse): JournalEvent {
  return {
    type: 'reorg.response', at: toIso(r.at), reorg_id: r.reorgId, run_id: r.runId, workflow: r.workflow, network: r.network,
    block: Number(r.block), removed_block_hash: r.removedBlockHash, depth: r.depth,
  };
}
