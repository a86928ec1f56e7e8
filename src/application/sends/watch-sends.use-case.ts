import { inject, injectable } from 'inversify';
import { DEFAULT_SEND_TIMEOUT_MS } from '../../domain/engine/workflow';
import type { JournalEvent } from '../../domain/journal/journal-event';
import { Redactor } from '../../domain/redactor';
import { sendInStream, type SendState } from '../../domain/sends/send-state';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { Logger } from '../ports/logger';
import { NonceAllocator } from '../ports/nonce-allocator';
import { RunRepository } from '../ports/run-repository';
import { UnattendedRuns } from '../ports/unattended-runs';
import { SendWatch, type WatchedSend } from '../ports/send-watch';
import { WorkflowCatalog } from '../workflow-catalog';
import { AdvanceSend } from './advance-send.use-case';
import { FillNonceGaps } from './fill-nonce-gaps.use-case';
import { Relayers } from './relayers';
import { WATCH_GRACE_MS } from './submit-send.use-case';

const BATCH = 50;
const LEASE_MS = 60_000;

/**
 * Settles the sends nobody waits for (CONTRACT 8.5): those of `wait_for: none | submitted` steps, of runs cancelled
 * or dead-lettered while their send was in flight, and any send whose run has not looked at it for a while (its
 * engine was down). Each due send is leased, looked at once (AdvanceSend), and its settle journaled; a signed send
 * that never reached the journal gives its nonce back once its run has ended; then the lanes' holes are filled
 * (FillNonceGaps). Run by the engine's loop.
 */
@injectable()
export class WatchSends {
  private running: Promise<number> | undefined;

  constructor(
    @inject(SendWatch) private readonly watch: SendWatch,
    @inject(AdvanceSend) private readonly advance: AdvanceSend,
    @inject(NonceAllocator) private readonly nonces: NonceAllocator,
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(Relayers) private readonly relayers: Relayers,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(UnattendedRuns) private readonly topups: UnattendedRuns,
    @inject(FillNonceGaps) private readonly gaps: FillNonceGaps,
  ) {}

  /** Looks at every send due now (one drain at a time per process); resolves with how many settled. */
  drain(owner: string): Promise<number> {
    this.running ??= this.run(owner).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(owner: string): Promise<number> {
    let settled = 0;
    for (let rounds = 0; rounds < 20; rounds++) {
      const now = this.clock.now();
      const due = await this.watch.claimDue(owner, now, now + LEASE_MS, BATCH);
      for (const w of due) {
        try {
          if (await this.look(w, owner)) settled++;
        } catch (err) {
          await this.watch.release(w.sendId, owner, this.clock.now() + WATCH_GRACE_MS / 4).catch(() => undefined);
          this.logger.warn('send watch: look failed', { send_id: w.sendId, err: this.redactor.redactText(err instanceof Error ? err.message : String(err)) });
        }
      }
      if (due.length < BATCH) break;
    }
    try {
      await this.gaps.execute();
    } catch (err) {
      this.logger.warn('nonce gaps: look failed', { err: this.redactor.redactText(err instanceof Error ? err.message : String(err)) });
    }
    return settled;
  }

  private async look(w: WatchedSend, owner: string): Promise<boolean> {
    const stream = await this.runs.stream(w.runId);
    const send = sendInStream(stream, w.sendId);
    if (!send || send.submissions.length === 0) {
      // Signed, never journaled: its step runs again with the same send id while the run lives; after, the nonce is free.
      if (stream.some((e) => e.type === 'run.finished') || stream.length === 0) {
        await this.nonces.giveBack(w.sendId);
        await this.watch.unwatch(w.sendId);
      } else {
        await this.watch.release(w.sendId, owner, this.clock.now() + WATCH_GRACE_MS);
      }
      return false;
    }
    if (send.settled) {
      await this.watch.unwatch(w.sendId);
      return false;
    }
    const advanced = await this.advance.execute({ send, ...this.policy(stream, send) });
    // Expired with no cancel possible under the fee cap: the step has failed, and the send is watched until it lands.
    if (advanced.kind === 'waiting' || advanced.kind === 'timed_out') {
      await this.watch.release(w.sendId, owner, advanced.dueAt);
      return false;
    }
    // A top-up run parked on this send ends with it (no engine resumes it); any other run's engine reads the settle.
    const ending = this.topups.ending(stream, advanced.event);
    await this.journal.append([advanced.event, ...ending]);
    if (ending.length > 0) await this.topups.complete(w.runId, advanced.event);
    await this.watch.unwatch(w.sendId);
    return true;
  }

  /** The send step's timeout (expiry from the first broadcast) and confirmations, from the workflow as configured. */
  private policy(stream: readonly JournalEvent[], send: SendState): { expiresAt: number; confirmations: number } {
    const started = stream.find((e) => e.type === 'run.started');
    const workflow = started?.type === 'run.started' ? this.catalog.get(started.workflow) : undefined;
    const stepId = send.stepRunId.slice(send.runId.length + 1);
    const step = workflow?.steps.find((s) => s.id === stepId);
    const timeoutMs = step?.type === 'send' ? step.timeoutMs : DEFAULT_SEND_TIMEOUT_MS;
    const configured = step?.type === 'send' ? step.fields.confirmations : undefined;
    const confirmations = typeof configured === 'number' && configured >= 1 ? configured : this.relayers.get(send.relayer).network.confirmations;
    return { expiresAt: send.submissions[0]!.at + timeoutMs, confirmations };
  }
}
