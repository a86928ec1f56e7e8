import { inject, injectable } from 'inversify';
import { JournalRejectedError } from '../../domain/errors';
import type { SendSubmitted } from '../../domain/journal/journal-event';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { EventCursors, type SendReorg } from '../ports/event-cursors';
import { JournalWriter } from '../ports/journal-writer';
import { Logger } from '../ports/logger';
import { SendWatch } from '../ports/send-watch';

/**
 * Sends under a reorg (CONTRACT 8.6): each settled send whose receipt's block a roll back removed is journaled back to
 * awaiting its transaction (`send.submitted` of the hash that had landed, with `reorged`; its ledger entry leaves every
 * sum in the same write), then handed to the send watch, which settles it again when it lands again (a new ledger
 * entry) or when it expires. A reopening stays pending in storage until all of that is done: a crash in between makes
 * it again at the next poll, and the journal keeps one (the event is the same, to its time: a repeat is a duplicate).
 */
@injectable()
export class ReopenReorgedSends {
  constructor(
    @inject(EventCursors) private readonly cursors: EventCursors,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(SendWatch) private readonly watch: SendWatch,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
  ) {}

  /** Journals the pending reopenings of a network's sends; how many it journaled. */
  async execute(network: string): Promise<number> {
    let done = 0;
    for (const reorg of await this.cursors.pendingSendReorgs(network)) {
      try {
        await this.journal.append([reopenEvent(reorg)]);
      } catch (err) {
        // The journal tells another story (the send was imported settled otherwise, or is no longer settled with that
        // hash): nothing to reopen, and asking again would only fail again.
        if (!(err instanceof JournalRejectedError)) throw err;
        this.logger.warn('reorged send not reopened: the journal refused it', { send_id: reorg.sendId, tx_hash: reorg.txHash, err: err.message });
        await this.cursors.sendReorgJournaled(reorg.sendId, reorg.removedBlockHash);
        continue;
      }
      await this.watch.watch({ sendId: reorg.sendId, runId: reorg.runId }, this.clock.now());
      await this.cursors.sendReorgJournaled(reorg.sendId, reorg.removedBlockHash);
      this.logger.warn('send back to awaiting its transaction: a reorg removed the block of its receipt', {
        send_id: reorg.sendId, run_id: reorg.runId, network: reorg.network, tx_hash: reorg.txHash, block: Number(reorg.block),
        removed_block_hash: reorg.removedBlockHash,
      });
      done++;
    }
    return done;
  }
}

/** The journal's reopening of a send: the same event each time it is made. */
export function reopenEvent(r: SendReorg): SendSubmitted {
  return {
    type: 'send.submitted', at: toIso(r.at), send_id: r.sendId, tx_hash: r.txHash,
    reorged: { block: Number(r.block), removed_block_hash: r.removedBlockHash },
  };
}
