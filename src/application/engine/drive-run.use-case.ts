import { inject, injectable, optional } from 'inversify';
import { decide, type Circumstances, type Evaluate, type Move } from '../../domain/engine/decider';
import { advance, runProgress, type RunProgress } from '../../domain/engine/run-progress';
import { runParked, runResumed, stepFinished, stepStarted } from '../../domain/engine/run-events';
import type { StepDefinition, WorkflowDefinition } from '../../domain/engine/workflow';
import { JournalRejectedError, LeaseLostError } from '../../domain/errors';
import type { ErrorInfo, JournalEvent, RunEndStatus } from '../../domain/journal/journal-event';
import { parseRfc3339, toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { EngineMetrics, NO_ENGINE_METRICS, type DriveOutcome } from '../ports/engine-metrics';
import { EngineStore, type ClaimedRun } from '../ports/engine-store';
import { ExpressionError, Expressions } from '../ports/expressions';
import { JournalWriter, type LeaseFence } from '../ports/journal-writer';
import { RunRepository } from '../ports/run-repository';
import { NotifyRunEvents } from '../notifications/notify.use-case';
import { OperatorLog } from '../operator-log';
import { RelayerAddresses } from './relayer-addresses';
import { StepRunners, type Attempted } from './step-runners';
import { runDefinition } from './run-definition';
import { runScope } from './run-scope';
import { isTransientStorageError, retryStorage, STORAGE_MAX_BACKOFF_MS } from './storage-retry';
import { evaluateBool } from './templates';
import { FinishSessions } from './finish-sessions';
import { WorkflowCatalog } from '../workflow-catalog';

export type { DriveOutcome } from '../ports/engine-metrics';

/**
 * The runner's view of one run while it drives it: the progress replayed from the journal, kept current, the events
 * recorded since the last journal write, and what the decider is told beside the journal.
 */
interface Drive {
  readonly claim: ClaimedRun;
  readonly owner: string;
  readonly p: RunProgress;
  /** Recorded, not journaled yet: written together at the next flush (before a side effect, a park or the end). */
  readonly pending: JournalEvent[];
  readonly stopping: () => boolean;
  /** Set when the previous holder's lease expired (its process died); see Circumstances. */
  crash?: Circumstances['crash'];
  /** The attempt that just failed, until the decider has said what follows. */
  failed?: Circumstances['failed'];
  /** Each step run's last journaled start (type, epoch ms), so a finish counts its duration also after a park. */
  readonly starts: Map<string, { readonly type: string; readonly at: number }>;
  /** Step attempts ended among `pending`, counted once the journal has them (a refused append counts nothing). */
  readonly ended: Array<{ readonly type: string; readonly seconds: number }>;
}

/**
 * Drives one run that this engine process holds (CONTRACT 8.2): from where its journal stands, through its
 * conditions and steps, until it ends or parks: the decider (domain/engine/decider) says the next move, this performs
 * it (side effects through the ports), journals, and asks again. Every move is journaled through JournalWriter; the
 * schedule (EngineStore) only says when to look at the run again, so the journal decides what happens next.
 */
@injectable()
export class DriveRun {
  constructor(
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(EngineStore) private readonly store: EngineStore,
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(StepRunners) private readonly steps: StepRunners,
    @inject(Expressions) private readonly expressions: Expressions,
    @inject(Clock) private readonly clock: Clock,
    @inject(RelayerAddresses) @optional() private readonly relayerAddresses?: RelayerAddresses,
    @inject(EngineMetrics) @optional() private readonly metrics: EngineMetrics = NO_ENGINE_METRICS,
    @inject(NotifyRunEvents) @optional() private readonly notify?: NotifyRunEvents,
    @inject(OperatorLog) @optional() private readonly log?: OperatorLog,
    /** Ends a replay session with its last run; without it (tests of other things), sessions stay open. */
    @inject(FinishSessions) @optional() private readonly sessions?: FinishSessions,
  ) {}

  /**
   * `stopping`: the engine is shutting down; the run is let go before its next step attempt (see `letGo`).
   * `refusedGone`: called when a write was refused because the run left the schedule meanwhile (it ended
   * elsewhere, a cancel), which the outcome `gone` alone does not tell from a run there was nothing to do for.
   */
  async execute(claim: ClaimedRun, owner: string, stopping: () => boolean = () => false, refusedGone: () => void = () => undefined): Promise<DriveOutcome> {
    // A concurrent decision (a cancel, an approval) can make an append of ours refused: read again and go on.
    for (let tries = 0; ; tries++) {
      try {
        // A retry reads what the first try journaled.
        return await this.driveOnce(tries === 0 ? claim : { ...claim, fresh: false, stream: undefined }, owner, stopping);
      } catch (err) {
        // Taken over: the new holder drives it. Unscheduled: it ended elsewhere (a cancel), nothing is left to do.
        if (err instanceof LeaseLostError) {
          if (!err.unscheduled) return 'lost';
          refusedGone();
          return 'gone';
        }
        if (isTransientStorageError(err)) return this.letGoAfterStorageFailure(claim, owner);
        if (!(err instanceof JournalRejectedError) || tries >= 2) throw err;
      }
    }
  }

  private async driveOnce(claim: ClaimedRun, owner: string, stopping: () => boolean): Promise<DriveOutcome> {
    let stream: readonly JournalEvent[] = claim.fresh ? [] : (claim.stream ?? (await retryStorage(() => this.runs.stream(claim.runId))));
    const pending: JournalEvent[] = [];
    if (!stream.some((e) => e.type === 'run.started')) {
      // Enqueued, but its starter died before journaling it: the start recorded with the run is journaled with
      // the run's first moves.
      if (claim.start.length === 0) {
        await retryStorage(() => this.store.remove(claim.runId));
        return 'gone';
      }
      pending.push(...claim.start);
      stream = claim.start;
    }
    const p = runProgress(stream)!;
    const crash = claim.expired ? { stepRunId: claim.crashStepRunId, count: claim.crashCount } : undefined;
    const d: Drive = { claim, owner, p, pending, stopping, crash, starts: new Map(), ended: [] };
    for (const e of stream) this.noteStart(d, e);
    if (p.finished) return this.removed(d);
    const resolved = await retryStorage(() => runDefinition(this.catalog, this.store, p, claim.definitionHash));
    if ('changed' in resolved) return this.end(d, [], 'dead_lettered', { kind: 'definition_changed', message: resolved.changed });
    for (;;) {
      const outcome = await this.perform(d, resolved.definition, this.next(d, resolved.definition));
      if (outcome) return outcome;
    }
  }

  /** Asks the decider for the run's next move. */
  private next(d: Drive, definition: WorkflowDefinition): Move {
    let scope: Record<string, unknown> | undefined;
    const evaluate: Evaluate = (expression) => {
      try {
        return evaluateBool(expression, this.expressions, (scope ??= runScope(d.p, this.relayerAddresses)));
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        return { error: err.message };
      }
    };
    const move = decide(d.p, definition, this.clock.now(), { evaluate, stopping: d.stopping(), crash: d.crash, failed: d.failed });
    d.failed = undefined;
    // A death is counted at the drive's first decision only, as the claim found it (then ended or gone past).
    if (move.kind !== 'note_crash') d.crash = undefined;
    return move;
  }

  /** Performs a move; returns an outcome when the run ended, parked or was let go, else the decider is asked again. */
  private async perform(d: Drive, definition: WorkflowDefinition, move: Move): Promise<DriveOutcome | undefined> {
    switch (move.kind) {
      case 'remove':
        return this.removed(d);
      case 'note_crash':
        await retryStorage(() => this.store.noteCrash(d.claim.runId, move.stepRunId, move.count));
        d.crash = { stepRunId: move.stepRunId, count: move.count, noted: true };
        return undefined;
      case 'journal':
        this.emit(d, move.events);
        return undefined;
      case 'end':
        return this.end(d, move.events, move.status, move.error);
      case 'park':
        this.emit(d, move.events);
        return this.park(d, move.dueAt);
      case 'let_go':
        return this.letGo(d);
      case 'recover_send':
        return this.recoverSend(d, definition, move);
      case 'resume_wait':
        return this.resumeWait(d, definition, move);
      case 'start_step':
        return this.attempt(d, move.step, move.stepRunId, move.attempt, definition);
    }
  }

  private async attempt(d: Drive, step: StepDefinition, srid: string, attempt: number, definition: WorkflowDefinition): Promise<DriveOutcome | undefined> {
    let prepared;
    const at = definition.steps.indexOf(step);
    const upcoming = at < 0 ? [] : definition.steps.slice(at + 1);
    try {
      prepared = this.steps.prepare(step, { runId: d.claim.runId, stepRunId: srid, attempt, scope: runScope(d.p, this.relayerAddresses), fence: this.fenceOf(d), upcoming });
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      const error = { kind: 'expression_error', message: err.message };
      return this.end(d, [stepStarted(this.now(), srid, step, attempt), stepFinished(this.now(), srid, { kind: 'failed', error })], 'failed', error);
    }
    this.emit(d, [stepStarted(this.now(), srid, step, attempt, prepared.input)]);
    // What the step does outside must follow its journaled start: a crash mid-step then shows as a started attempt.
    if (prepared.sideEffects) await this.flush(d);
    return this.conclude(d, srid, await prepared.run());
  }

  /**
   * Journals how an attempt ended (with the events it brought, after `before`), or its park. A failure is left to
   * the decider (another attempt after a wait, or the run's end), in the same append.
   */
  private async conclude(d: Drive, srid: string, result: Attempted, before: JournalEvent[] = []): Promise<DriveOutcome | undefined> {
    if (result.kind === 'parked') {
      const { wait } = result;
      this.emit(d, [...before, ...result.events, runParked(this.now(), srid, wait)]);
      return this.park(d, wait.dueAt);
    }
    this.emit(d, [...before, ...(result.events ?? []), stepFinished(this.now(), srid, result)]);
    if (result.kind === 'failed') d.failed = { stepRunId: srid, retryable: result.retryable !== false };
    return undefined;
  }

  /** A send step found running: its send is looked at again, never sent anew (CONTRACT 8.5). */
  private async recoverSend(d: Drive, definition: WorkflowDefinition, move: Extract<Move, { kind: 'recover_send' }>): Promise<DriveOutcome | undefined> {
    const ctx = { runId: d.claim.runId, stepRunId: move.stepRunId, attempt: move.attempt, scope: runScope(d.p, this.relayerAddresses) };
    const result = await this.steps.resumeSend(move.step, ctx, d.owner);
    if (!result) return this.perform(d, definition, move.otherwise);
    // Still in flight, nothing new to journal: the run stays parked as it is, due again when the send says.
    if (result.kind === 'parked' && move.parked && result.events.length === 0) return this.park(d, result.wait.dueAt);
    return this.conclude(d, move.stepRunId, result, move.parked ? [runResumed(this.now(), d.claim.runId)] : []);
  }

  /** A `wait_event` step's run claimed again: its log came (the step succeeds), its time ran out, or it waits on. */
  private async resumeWait(d: Drive, definition: WorkflowDefinition, move: Extract<Move, { kind: 'resume_wait' }>): Promise<DriveOutcome | undefined> {
    const ctx = { runId: d.claim.runId, stepRunId: move.stepRunId, attempt: move.attempt, scope: runScope(d.p, this.relayerAddresses) };
    const result = await this.steps.resumeWait(move.step, ctx);
    if (!result) return this.perform(d, definition, move.otherwise);
    if (result.kind === 'parked') return this.park(d, result.wait.dueAt);
    return this.conclude(d, move.stepRunId, result, [runResumed(this.now(), d.claim.runId)]);
  }

  /**
   * Journals `events`, then the run's end (and its test session's end), and takes the run off the schedule: in the
   * same write, unless the run's replay session is to be looked at after its end (a crash between the two must leave
   * the run in the schedule, so that the next claim looks at its session again).
   */
  private async end(d: Drive, events: readonly JournalEvent[], status: RunEndStatus, error?: ErrorInfo): Promise<DriveOutcome> {
    const { started } = d.p;
    const closing: JournalEvent[] = [{ type: 'run.finished', at: this.now(), run_id: started.run_id, status, ...(error ? { error } : {}) }];
    if (started.session === 'test' && started.session_id) closing.push({ type: 'session.finished', at: this.now(), session_id: started.session_id });
    this.emit(d, [...events, ...closing]);
    const sessionAfter = this.sessions?.concerns({ session: started.session, sessionId: started.session_id }) ?? false;
    await this.flush(d, !sessionAfter);
    this.metrics.runEnded(started.workflow, status);
    // Logged once the journal took the end: a refused append (another driver's decision) logs nothing.
    this.log?.runEnded({ runId: started.run_id, workflow: started.workflow, stepId: endingStep(d.p) }, status, error);
    return sessionAfter ? this.removed(d) : 'finished';
  }

  /** The run ended (now, or before a crash let the schedule keep it): its session may end too, then it leaves the schedule. */
  private async removed(d: Drive): Promise<DriveOutcome> {
    const { started } = d.p;
    if (this.sessions) await retryStorage(() => this.sessions!.afterRunEnded({ session: started.session, sessionId: started.session_id }));
    await retryStorage(() => this.store.remove(d.claim.runId));
    return 'finished';
  }

  /**
   * The engine is stopping: what was recorded is journaled and the run is released, due at once, between two step
   * attempts (nothing is half done), for whichever engine process comes next. The run stays `running` meanwhile.
   */
  private async letGo(d: Drive): Promise<DriveOutcome> {
    await this.flush(d);
    await retryStorage(() => this.store.release(d.owner, d.claim.runId, this.clock.now()));
    return 'parked';
  }

  /**
   * A storage read or write inside a step failed for a moment (the database locked or unreachable): the run is let
   * go, released rather than left to an expired lease, so that the next claim does not take it for a crash
   * (CONTRACT 8.7). What this drive journaled stands; a step it had started runs again as its next attempt.
   */
  private async letGoAfterStorageFailure(claim: ClaimedRun, owner: string): Promise<DriveOutcome> {
    await retryStorage(() => this.store.release(owner, claim.runId, this.clock.now() + STORAGE_MAX_BACKOFF_MS));
    return 'parked';
  }

  private async park(d: Drive, dueAt: number | null): Promise<DriveOutcome> {
    await this.flush(d);
    await retryStorage(() => this.store.release(d.owner, d.claim.runId, dueAt));
    return 'parked';
  }

  /**
   * Records moves of the run: its progress advances at once, the journal gets them at the next flush. Moves with
   * no side effect between them (a step's end and the next step's start, a start and its park) share one append.
   */
  private emit(d: Drive, events: readonly JournalEvent[]): void {
    d.pending.push(...events);
    for (const e of events) {
      advance(d.p, e);
      this.noteStart(d, e);
      if (e.type === 'step.finished' && e.status !== 'skipped') this.stepEnded(d, e.step_run_id, e.at);
    }
  }

  private noteStart(d: Drive, e: JournalEvent): void {
    if (e.type === 'step.started') d.starts.set(e.step_run_id, { type: e.step_type, at: parseRfc3339(e.at) ?? this.clock.now() });
  }

  /** Timed from the attempt's journaled start: a wait (a delay, an approval, a receipt) included. */
  private stepEnded(d: Drive, stepRunId: string, at: string): void {
    const start = d.starts.get(stepRunId);
    if (start) d.ended.push({ type: start.type, seconds: Math.max(0, ((parseRfc3339(at) ?? this.clock.now()) - start.at) / 1000) });
  }

  /** `unschedule`: the run leaves the schedule with these events (its end). */
  private async flush(d: Drive, unschedule = false): Promise<void> {
    if (d.pending.length === 0) return;
    const events = d.pending.splice(0);
    const fence = this.fenceOf(d);
    await retryStorage(() => this.journal.append(events, unschedule ? { fence, unschedule: fence.runId } : { fence }));
    for (const s of d.ended.splice(0)) this.metrics.stepFinished(d.p.started.workflow, s.type, s.seconds);
    // Told once journaled: a notification never announces what the journal does not hold.
    await this.notify?.execute(d.p.started, events);
  }

  private fenceOf(d: Drive): LeaseFence {
    return { runId: d.claim.runId, token: d.claim.fence };
  }

  private now(): string {
    return toIso(this.clock.now());
  }
}

/** The step a run ended on: the last that failed, else the one still under way (parked), else none (a condition). */
function endingStep(p: RunProgress): string | null {
  let failed: string | null = null;
  let open: string | null = null;
  for (const step of p.steps.values()) {
    if (step.status === 'failed') failed = step.stepId;
    if (step.status === 'running') open = step.stepId;
  }
  return failed ?? open;
}
