import { inject, injectable, optional } from 'inversify';
import { advance, runProgress, type RunProgress, type StepProgress } from '../../domain/engine/run-progress';
import { NON_RETRYABLE, retryDelayMs, stepRunId, type StepDefinition, type WorkflowDefinition } from '../../domain/engine/workflow';
import { JournalRejectedError, LeaseLostError } from '../../domain/errors';
import type { ErrorInfo, JournalEvent, Json, RunEndStatus } from '../../domain/journal/journal-event';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { EngineStore, type ClaimedRun } from '../ports/engine-store';
import { ExpressionError } from '../ports/expressions';
import { Expressions } from '../ports/expressions';
import { JournalWriter, type LeaseFence } from '../ports/journal-writer';
import { RunRepository } from '../ports/run-repository';
import { RelayerAddresses } from './relayer-addresses';
import { StepRunners, type Attempted } from './step-runners';
import { runDefinition } from './run-definition';
import { isTransientStorageError, retryStorage, STORAGE_MAX_BACKOFF_MS } from './storage-retry';
import { evaluateBool } from './templates';
import { WorkflowCatalog } from './workflow-catalog';

/**
 * How a drive left the run: ended, parked (released to be claimed when due), gone (nothing to drive), or lost (its
 * lease was taken over by another driver, whose the run is now: this one wrote nothing after).
 */
export type DriveOutcome = 'finished' | 'parked' | 'gone' | 'lost';

/** A poison run: the same step was running each of this many times its engine process died. */
const CRASHES_TO_DEAD_LETTER = 2;

/**
 * The runner's view of one run while it drives it: the progress replayed from the journal, kept current, and the
 * events recorded since the last journal write.
 */
interface Drive {
  readonly claim: ClaimedRun;
  readonly owner: string;
  readonly p: RunProgress;
  /** Recorded, not journaled yet: written together at the next flush (before a side effect, a park or the end). */
  readonly pending: JournalEvent[];
  readonly stopping: () => boolean;
  /** The definition the run goes on with (see runDefinition); set once the run's stream is read. */
  definition?: WorkflowDefinition;
}

/**
 * Drives one run that this engine process holds (CONTRACT 8.2): from where its journal stands, through its
 * conditions and steps, until it ends or parks. Every move is journaled through JournalWriter; the schedule
 * (EngineStore) only says when to look at the run again, so the journal alone decides what happens next.
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
  ) {}

  /** `stopping`: the engine is shutting down; the run is let go before its next step attempt (see `letGo`). */
  async execute(claim: ClaimedRun, owner: string, stopping: () => boolean = () => false): Promise<DriveOutcome> {
    // A concurrent decision (a cancel, an approval) can make an append of ours refused: read again and go on.
    for (let tries = 0; ; tries++) {
      try {
        // A retry reads what the first try journaled.
        return await this.driveOnce(tries === 0 ? claim : { ...claim, fresh: false }, owner, stopping);
      } catch (err) {
        // Taken over: the new holder drives it. Unscheduled: it ended elsewhere (a cancel), nothing is left to do.
        if (err instanceof LeaseLostError) return err.unscheduled ? 'gone' : 'lost';
        if (isTransientStorageError(err)) return this.letGoAfterStorageFailure(claim, owner);
        if (!(err instanceof JournalRejectedError) || tries >= 2) throw err;
      }
    }
  }

  private async driveOnce(claim: ClaimedRun, owner: string, stopping: () => boolean): Promise<DriveOutcome> {
    let stream: readonly JournalEvent[] = claim.fresh ? [] : await retryStorage(() => this.runs.stream(claim.runId));
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
    const d: Drive = { claim, owner, p, pending, stopping };
    if (p.finished) return this.removed(d);
    const resolved = await retryStorage(() => runDefinition(this.catalog, this.store, p, claim.definitionHash));
    if ('changed' in resolved) return this.end(d, [], 'dead_lettered', { kind: 'definition_changed', message: resolved.changed });
    const { definition } = resolved;
    d.definition = definition;
    if (claim.expired) {
      const poisoned = await this.countCrash(d);
      if (poisoned) return poisoned;
    }
    if (p.parked) {
      const parked = await this.resumeParked(d, definition);
      if (parked) return parked;
    }
    if (!p.conditionsChecked && definition.conditions.length > 0) {
      const skipped = await this.checkConditions(d, definition);
      if (skipped) return skipped;
    }
    for (const step of definition.steps) {
      const outcome = await this.driveStep(d, step);
      if (outcome) return outcome;
    }
    return this.end(d, [], 'succeeded');
  }

  /** Runs a step to its end; returns an outcome when the run ended or parked on it. */
  private async driveStep(d: Drive, step: StepDefinition): Promise<DriveOutcome | undefined> {
    for (;;) {
      const progress = d.p.steps.get(step.id);
      if (progress?.status === 'succeeded' || progress?.status === 'skipped') return undefined;
      if (progress?.status === 'failed') {
        // A failure is journaled together with its retry park or the run's end; reaching one here means the
        // retry wait is over (the run was resumed).
        if (!this.retryable(step, progress)) return this.end(d, [], 'failed', progress.error ?? undefined);
      }
      if (d.stopping()) return this.letGo(d);
      if (progress?.status === 'running' && step.type === 'send') {
        const recovered = await this.resumeSend(d, step, progress, false);
        if (recovered !== 'fresh') {
          if (recovered) return recovered;
          continue;
        }
      }
      // A step still `running` here was running when its process died: it runs again as its next attempt.
      const attempt = (progress?.attempts ?? 0) + 1;
      const outcome = await this.attempt(d, step, attempt);
      if (outcome) return outcome;
    }
  }

  private async attempt(d: Drive, step: StepDefinition, attempt: number): Promise<DriveOutcome | undefined> {
    const { runId } = d.claim;
    const srid = stepRunId(runId, step.id);
    const started = (input: Json | undefined): JournalEvent => ({
      type: 'step.started', at: this.now(), run_id: runId, step_run_id: srid, step_id: step.id, step_type: step.type, attempt,
      ...(input !== undefined && input !== null ? { input } : {}),
    });
    const scope = this.scope(d);
    const skip = async (output: Json): Promise<undefined> => {
      await this.emit(d, [started(undefined), { type: 'step.finished', at: this.now(), run_id: runId, step_run_id: srid, status: 'skipped', output }]);
      return undefined;
    };
    let prepared;
    try {
      if (step.if !== undefined && !evaluateBool(step.if, this.expressions, scope)) return skip({ reason: 'if was false' });
      if (step.skipInTest && d.p.started.session === 'test') return skip({ reason: 'in_test: skip' });
      prepared = this.steps.prepare(step, { runId, stepRunId: srid, attempt, scope, fence: this.fenceOf(d) });
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      const error = { kind: 'expression_error', message: err.message };
      return this.end(d, [started(undefined), this.stepFinished(srid, { kind: 'failed', error })], 'failed', error);
    }
    await this.emit(d, [started(prepared.input)]);
    // What the step does outside must follow its journaled start: a crash mid-step then shows as a started attempt.
    if (prepared.sideEffects) await this.flush(d);
    return this.conclude(d, step, srid, attempt, await prepared.run());
  }

  /** Journals how an attempt ended (with the events it brought), or its park; a failure retries or ends the run. */
  private async conclude(d: Drive, step: StepDefinition, srid: string, attempt: number, result: Attempted, before: JournalEvent[] = []): Promise<DriveOutcome | undefined> {
    const { runId } = d.claim;
    if (result.kind === 'succeeded') {
      await this.emit(d, [...before, ...(result.events ?? []), this.stepFinished(srid, result)]);
      return undefined;
    }
    if (result.kind === 'parked') {
      const { wait } = result;
      await this.emit(d, [...before, ...result.events, {
        type: 'run.parked', at: this.now(), run_id: runId, wait_kind: wait.kind, step_run_id: srid,
        ...(wait.dueAt !== null ? { due_at: toIso(wait.dueAt) } : {}), ...(wait.expiresAt !== null ? { expires_at: toIso(wait.expiresAt) } : {}),
      }]);
      return this.park(d, wait.dueAt);
    }
    const finished = [...before, ...(result.events ?? []), this.stepFinished(srid, result)];
    const again = result.retryable !== false && !NON_RETRYABLE.has(result.error.kind) && attempt < step.retry.attempts;
    // A step that cannot go on with the configuration as it is now (a send whose relayer left it) dead-letters the run.
    if (!again) return this.end(d, finished, result.error.kind === 'definition_changed' ? 'dead_lettered' : 'failed', result.error);
    const dueAt = this.clock.now() + retryDelayMs(step.retry, attempt + 1);
    await this.emit(d, [...finished, { type: 'run.parked', at: this.now(), run_id: runId, wait_kind: 'delay', step_run_id: srid, due_at: toIso(dueAt) }]);
    return this.park(d, dueAt);
  }

  /**
   * A send step found running: its send is looked at again, never sent anew (CONTRACT 8.5). Undefined when the step
   * queued no send in this attempt (it runs again), or when it goes on (the send settled and the step finished).
   */
  private async resumeSend(d: Drive, step: StepDefinition, progress: StepProgress, parked: boolean): Promise<DriveOutcome | undefined | 'fresh'> {
    const ctx = { runId: d.claim.runId, stepRunId: progress.stepRunId, attempt: progress.attempts, scope: this.scope(d) };
    const result = await this.steps.resumeSend(step, ctx, d.owner);
    if (!result) return 'fresh';
    // Still in flight, nothing new to journal: the run stays parked as it is, due again when the send says.
    if (result.kind === 'parked' && parked && result.events.length === 0) return this.park(d, result.wait.dueAt);
    const resumed: JournalEvent[] = parked ? [{ type: 'run.resumed', at: this.now(), run_id: d.claim.runId }] : [];
    return this.conclude(d, step, progress.stepRunId, progress.attempts, result, resumed);
  }

  private retryable(step: StepDefinition, progress: StepProgress): boolean {
    return !!progress.error && !NON_RETRYABLE.has(progress.error.kind) && progress.attempts < step.retry.attempts;
  }

  /**
   * A parked run claimed again: still waiting (released again, due when it should be), or its wait is over
   * (journaled, and the run goes on; undefined is returned).
   */
  private async resumeParked(d: Drive, definition: WorkflowDefinition): Promise<DriveOutcome | undefined> {
    const parked = d.p.parked!;
    const now = this.clock.now();
    const step = [...d.p.steps.values()].find((s) => s.stepRunId === parked.stepRunId);
    const stepDef = step && definition.steps.find((s) => s.id === step.stepId);
    if (step && !stepDef) {
      return this.end(d, [], 'dead_lettered', { kind: 'definition_changed', message: `step ${step.stepId} is no longer in workflow ${definition.name}` });
    }
    const resumed: JournalEvent = { type: 'run.resumed', at: this.now(), run_id: d.claim.runId };
    if (parked.kind === 'approval' && step) {
      const approval = d.p.approvals.get(step.stepRunId);
      if (approval?.status === 'approved') {
        await this.emit(d, [resumed, this.stepFinished(step.stepRunId, { kind: 'succeeded', output: { decision: 'approved', by: approval.by, reason: approval.reason } })]);
        return undefined;
      }
      if (approval?.status === 'rejected' || approval?.status === 'expired') {
        const error = approval.status === 'rejected'
          ? { kind: 'approval_rejected', message: `rejected${approval.by ? ` by ${approval.by}` : ''}` }
          : { kind: 'approval_expired', message: 'the approval expired undecided' };
        return this.end(d, [resumed, this.stepFinished(step.stepRunId, { kind: 'failed', error })], 'failed', error);
      }
      const expiresAt = approval?.expiresAt ?? parked.expiresAt;
      if (expiresAt !== null && now < expiresAt) return this.park(d, expiresAt);
      if (expiresAt === null) return this.park(d, null);
      const error = { kind: 'approval_expired', message: 'the approval expired undecided' };
      const decided: JournalEvent[] = approval
        ? [{ type: 'approval.decided', at: this.now(), approval_id: approval.approvalId, decision: 'expired' }]
        : [];
      return this.end(d, [...decided, resumed, this.stepFinished(step.stepRunId, { kind: 'failed', error })], 'failed', error);
    }
    if (parked.kind === 'tx' && step?.status === 'running' && stepDef?.type === 'send') {
      const recovered = await this.resumeSend(d, stepDef, step, true);
      if (recovered !== 'fresh') return recovered;
    }
    if (parked.dueAt !== null && now < parked.dueAt) return this.park(d, parked.dueAt);
    if (parked.kind === 'delay' && step?.status === 'running' && stepDef?.type === 'delay') {
      await this.emit(d, [resumed, this.stepFinished(step.stepRunId, { kind: 'succeeded', output: { waited_until: parked.dueAt === null ? null : toIso(parked.dueAt) } })]);
      return undefined;
    }
    // A retry wait (or a wait this engine does not own a step for) is over: the run goes on.
    await this.emit(d, [resumed]);
    return undefined;
  }

  /** Conditions (CONTRACT 8.2): all must hold, else the run ends `skipped`. */
  private async checkConditions(d: Drive, definition: WorkflowDefinition): Promise<DriveOutcome | undefined> {
    const scope = this.scope(d);
    const results: { name: string; passed: boolean; detail?: Json }[] = [];
    let error: ErrorInfo | undefined;
    for (const c of definition.conditions) {
      try {
        results.push({ name: c.name, passed: evaluateBool(c.if, this.expressions, scope) });
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        error = { kind: 'expression_error', message: `condition ${c.name}: ${err.message}` };
        results.push({ name: c.name, passed: false, detail: { error: err.message } });
        break;
      }
    }
    const conditions: JournalEvent = { type: 'run.conditions', at: this.now(), run_id: d.claim.runId, results };
    if (error) return this.end(d, [conditions], 'failed', error);
    if (results.some((r) => !r.passed)) return this.end(d, [conditions], 'skipped');
    await this.emit(d, [conditions]);
    return undefined;
  }

  /**
   * The previous holder's lease expired: if a step was running (not parked), its process died mid-step. The same
   * step running at CRASHES_TO_DEAD_LETTER deaths in a row dead-letters the run (`engine_crash`).
   */
  private async countCrash(d: Drive): Promise<DriveOutcome | undefined> {
    const parkedOn = d.p.parked?.stepRunId;
    const running = [...d.p.steps.values()].find((s) => s.status === 'running' && s.stepRunId !== parkedOn);
    if (!running) return undefined;
    // A send is recovered by its hash, never run again: a crash during one is no sign of a poison run.
    if (d.definition?.steps.find((s) => s.id === running.stepId)?.type === 'send') return undefined;
    const count = d.claim.crashStepRunId === running.stepRunId ? d.claim.crashCount + 1 : 1;
    await retryStorage(() => this.store.noteCrash(d.claim.runId, running.stepRunId, count));
    if (count < CRASHES_TO_DEAD_LETTER) return undefined;
    const error = { kind: 'engine_crash', message: `step ${running.stepId} was running each of the ${count} times its engine process died` };
    return this.end(d, [this.stepFinished(running.stepRunId, { kind: 'failed', error })], 'dead_lettered', error);
  }

  /**
   * The expression context (CONTRACT 8.1, 8.8): trigger, steps.<id>.{status, output}, run, relayers.<name>.address.
   * Secrets are never in it.
   */
  private scope(d: Drive): Record<string, unknown> {
    const { started } = d.p;
    const steps: Record<string, unknown> = {};
    for (const s of d.p.steps.values()) steps[s.stepId] = { status: s.status, output: s.output };
    return {
      trigger: { kind: started.trigger.kind, payload: started.trigger.payload ?? null, ...(started.block !== undefined ? { block: started.block } : {}) },
      steps,
      run: { id: started.run_id, workflow: started.workflow, session: started.session },
      relayers: this.relayerAddresses?.context() ?? {},
    };
  }

  private stepFinished(srid: string, result: Exclude<Attempted, { kind: 'parked' }>): JournalEvent {
    return {
      type: 'step.finished', at: this.now(), run_id: this.runIdOf(srid), step_run_id: srid,
      status: result.kind === 'succeeded' ? 'succeeded' : 'failed',
      ...(result.output !== undefined && result.output !== null ? { output: result.output } : {}),
      ...(result.kind === 'failed' ? { error: result.error } : {}),
    };
  }

  private runIdOf(srid: string): string {
    return srid.slice(0, srid.lastIndexOf('.'));
  }

  /** Journals `events`, then the run's end (and its test session's end), and takes the run off the schedule. */
  private async end(d: Drive, events: JournalEvent[], status: RunEndStatus, error?: ErrorInfo): Promise<DriveOutcome> {
    const { started } = d.p;
    const closing: JournalEvent[] = [{ type: 'run.finished', at: this.now(), run_id: started.run_id, status, ...(error ? { error } : {}) }];
    if (started.session === 'test' && started.session_id) closing.push({ type: 'session.finished', at: this.now(), session_id: started.session_id });
    await this.emit(d, [...events, ...closing]);
    await this.flush(d);
    return this.removed(d);
  }

  private async removed(d: Drive): Promise<DriveOutcome> {
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
  private async emit(d: Drive, events: readonly JournalEvent[]): Promise<void> {
    d.pending.push(...events);
    for (const e of events) advance(d.p, e);
  }

  private async flush(d: Drive): Promise<void> {
    if (d.pending.length === 0) return;
    const events = d.pending.splice(0);
    await retryStorage(() => this.journal.append(events, { fence: this.fenceOf(d) }));
  }

  private fenceOf(d: Drive): LeaseFence {
    return { runId: d.claim.runId, token: d.claim.fence };
  }

  private now(): string {
    return toIso(this.clock.now());
  }
}
