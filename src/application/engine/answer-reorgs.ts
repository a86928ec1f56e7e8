import { inject, injectable, optional } from 'inversify';
import type { JournalEvent, RunStarted } from '../../domain/journal/journal-event';
import { ConflictError, NotFoundError } from '../../domain/errors';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { EventCursors, type ReorgResponse } from '../ports/event-cursors';
import { Expressions } from '../ports/expressions';
import { JournalWriter } from '../ports/journal-writer';
import { Logger } from '../ports/logger';
import { RunRepository } from '../ports/run-repository';
import { NotifyRunEvents } from '../notifications/notify.use-case';
import { WorkflowCatalog } from '../workflow-catalog';
import { CancelRun } from './cancel-run.use-case';
import { ReorgSteps } from './reorg-steps';
import { StepRunners } from './step-runners';

/** Waits between attempts of an on_reorg step (tests pass one that does not wait). */
export const ReorgRetryWait = Symbol('ReorgRetryWait');
const realWait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Journals the responses a roll back recorded (CONTRACT 8.6): `reorg.response` against the affected run, and ends
 * that run `cancelled` / `reorged` when it is still running or parked. A response stays pending in storage until it
 * is journaled: a crash in between journals it again at the next poll, and the journal keeps one (the event is the
 * same, to its time: a repeat is a duplicate), then the workflow's `on_reorg` steps run (ReorgSteps), and only then
 * is the response no longer pending. A run whose start no engine has journaled yet (its log run was
 * enqueued, not yet claimed) is answered once it is: it is due at once. A pass journals all its responses in one
 * append before it cancels a run or runs an on_reorg step, so that the operator sees a reorg's responses at once.
 */
@injectable()
export class AnswerReorgs {
  private readonly steps: ReorgSteps;

  constructor(
    @inject(EventCursors) private readonly cursors: EventCursors,
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(CancelRun) private readonly cancel: CancelRun,
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(StepRunners) runners: StepRunners,
    @inject(Expressions) expressions: Expressions,
    @inject(Clock) clock: Clock,
    @inject(Logger) private readonly logger: Logger,
    @inject(ReorgRetryWait) @optional() wait: (ms: number) => Promise<void> = realWait,
    /** The `reorg` notification (CONTRACT 11); without it (tests, tools), none. */
    @inject(NotifyRunEvents) @optional() private readonly notify?: NotifyRunEvents,
  ) {
    this.steps = new ReorgSteps(runners, expressions, () => clock.now(), wait);
  }

  async answer(network: string): Promise<void> {
    const owed: Array<{ response: ReorgResponse; going: boolean }> = [];
    const pending = await this.cursors.pendingResponses(network);
    // Read at once, not one after another: each read waits its turn behind the engine's writes, and a reorg under
    // load affects dozens of runs.
    const runs = await Promise.all(pending.map((response) => this.runs.get(response.runId)));
    pending.forEach((response, i) => {
      const run = runs[i];
      if (run) owed.push({ response, going: run.status === 'running' || run.status === 'waiting' });
    });
    if (owed.length === 0) return;
    // Every response first, in one append: a reorg's responses are known at once, and the runs still going stop,
    // whatever the on_reorg steps of the first ones then take.
    await this.journal.append(owed.map((o) => responseEvent(o.response)));
    for (const o of owed) if (o.going) await this.cancelRun(o.response);
    for (const { response } of owed) {
      const event = responseEvent(response);
      const stream = await this.runs.stream(response.runId);
      // The same delivery id each time (the reorg id): a repeat after a crash is one delivery.
      const started = stream.find((e): e is RunStarted => e.type === 'run.started');
      if (started) await this.notify?.execute(started, [event]);
      const onReorg = this.catalog.get(response.workflow)?.onReorg ?? [];
      if (onReorg.length > 0) {
        await this.steps.run(response, onReorg, stream, async (e) => {
          await this.journal.append([e]);
        });
      }
      await this.cursors.responseJournaled(response.reorgId);
    }
  }

  private async cancelRun(response: ReorgResponse): Promise<void> {
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
