import type { ErrorInfo, JournalEvent, Json, RunEndStatus } from '../journal/journal-event';
import { toIso } from '../time';
import type { RunProgress, StepProgress } from './run-progress';
import { runParked, runResumed, stepFinished, stepStarted } from './run-events';
import { NON_RETRYABLE, retryDelayMs, stepRunId, type ConditionDefinition, type StepDefinition } from './workflow';

/** A poison run: the same step was running each of this many times its engine process died (CONTRACT 8.2). */
export const CRASHES_TO_DEAD_LETTER = 2;

/**
 * What the decider walks: a workflow's conditions and one list of steps in order. A WorkflowDefinition is one; its
 * `on_reorg` steps can be walked the same way as `{ name, conditions: [], steps: onReorg }`.
 */
export interface Walk {
  readonly name: string;
  readonly conditions: readonly ConditionDefinition[];
  readonly steps: readonly StepDefinition[];
}

/** A CEL `if` or condition evaluated in the run's context: its bool, or why it has none (`expression_error`). */
export type Evaluate = (expression: string) => boolean | { readonly error: string };

/** What the driver knows beside the journal. */
export interface Circumstances {
  readonly evaluate: Evaluate;
  /** The engine is shutting down: the run is let go before its next step attempt. */
  readonly stopping?: boolean;
  /**
   * The previous holder's lease expired (its process died), with the schedule's crash record: the step run that was
   * running at the last deaths and how many in a row. `noted` once this drive has recorded the new count.
   */
  readonly crash?: { readonly stepRunId: string | null; readonly count: number; readonly noted?: boolean };
  /** An attempt of this drive just failed (journaled as such); `retryable` false: its runner allows no other. */
  readonly failed?: { readonly stepRunId: string; readonly retryable: boolean };
}

/** The next move of a run. `events` are journaled first, in this order. */
export type Move =
  /** The run ended already: take it off the schedule. */
  | { readonly kind: 'remove' }
  /** Record in the schedule that the step run was running when the engine died, `count` times in a row; ask again. */
  | { readonly kind: 'note_crash'; readonly stepRunId: string; readonly count: number }
  /** Journal and ask again. */
  | { readonly kind: 'journal'; readonly events: readonly JournalEvent[] }
  | { readonly kind: 'end'; readonly events: readonly JournalEvent[]; readonly status: RunEndStatus; readonly error?: ErrorInfo }
  /** Journal, then release the run until `dueAt` (null: until something wakes it). */
  | { readonly kind: 'park'; readonly events: readonly JournalEvent[]; readonly dueAt: number | null }
  /** Release the run, due at once, for the next engine process (the engine is stopping). */
  | { readonly kind: 'let_go' }
  /**
   * A send step found running: look at its send again, never send it anew (CONTRACT 8.5); `parked`: the run is parked
   * on it. `otherwise`: the move when that attempt queued no send.
   */
  | { readonly kind: 'recover_send'; readonly step: StepDefinition; readonly stepRunId: string; readonly attempt: number; readonly parked: boolean; readonly otherwise: Move }
  /**
   * A `wait_event` step's run claimed again (its log matched, or its timeout came): look at its wait, whatever the
   * run's due time says. `otherwise`: the move when the step has no wait recorded.
   */
  | { readonly kind: 'resume_wait'; readonly step: StepDefinition; readonly stepRunId: string; readonly attempt: number; readonly otherwise: Move }
  /** Render and run this attempt of the step. */
  | { readonly kind: 'start_step'; readonly step: StepDefinition; readonly stepRunId: string; readonly attempt: number };

/**
 * The one place a run's next move is decided (CONTRACT 8.2, 8.7): from what its journal says so far (`progress`),
 * the definition it goes on with and `now` (epoch ms). Pure: the driver performs the move, journals, and asks again.
 */
export function decide(progress: RunProgress, definition: Walk, now: number, circumstances: Circumstances): Move {
  if (progress.finished) return { kind: 'remove' };
  const at = toIso(now);
  const crashed = circumstances.crash && crashMove(progress, definition, circumstances.crash, at);
  if (crashed) return crashed;
  if (progress.parked) return resumeParked(progress, definition, now, circumstances);
  if (!progress.conditionsChecked && definition.conditions.length > 0) return checkConditions(progress, definition.conditions, at, circumstances.evaluate);
  for (const step of definition.steps) {
    const sp = progress.steps.get(step.id);
    if (sp?.status === 'succeeded' || sp?.status === 'skipped') continue;
    return stepMove(progress, step, sp, now, circumstances);
  }
  return { kind: 'end', events: [], status: 'succeeded' };
}

/** The current step (the first not done): retried, ended, recovered or started. */
function stepMove(p: RunProgress, step: StepDefinition, sp: StepProgress | undefined, now: number, c: Circumstances): Move {
  if (sp?.status === 'failed') {
    if (c.failed?.stepRunId === sp.stepRunId) return afterFailure(step, sp, c.failed.retryable, now);
    // A failure found on resuming was journaled with its retry wait, which is over now.
    if (!retryable(step, sp)) return { kind: 'end', events: [], status: 'failed', ...(sp.error ? { error: sp.error } : {}) };
  }
  if (c.stopping) return { kind: 'let_go' };
  // A step still `running` here was running when its process died: it runs again as its next attempt, except a send.
  const fresh = startMove(p, step, (sp?.attempts ?? 0) + 1, toIso(now), c.evaluate);
  if (sp?.status === 'running' && step.type === 'send') {
    return { kind: 'recover_send', step, stepRunId: sp.stepRunId, attempt: sp.attempts, parked: false, otherwise: fresh };
  }
  return fresh;
}

function retryable(step: StepDefinition, sp: StepProgress): boolean {
  return !!sp.error && !NON_RETRYABLE.has(sp.error.kind) && sp.attempts < step.retry.attempts;
}

/** An attempt just failed: another after the policy's backoff (a `delay` park), or the run ends with its error. */
function afterFailure(step: StepDefinition, sp: StepProgress, allowed: boolean, now: number): Move {
  const error = sp.error ?? { kind: 'unknown', message: 'the step failed' };
  if (!allowed || NON_RETRYABLE.has(error.kind) || sp.attempts >= step.retry.attempts) {
    // A step that cannot go on with the configuration as it is now (a send whose relayer left it) dead-letters the run.
    return { kind: 'end', events: [], status: error.kind === 'definition_changed' ? 'dead_lettered' : 'failed', error };
  }
  const dueAt = now + retryDelayMs(step.retry, sp.attempts + 1);
  return {
    kind: 'park', dueAt,
    events: [runParked(toIso(now), sp.stepRunId, { kind: 'delay', dueAt, expiresAt: null })],
  };
}

/** Attempt `attempt` of the step, unless its `if` is false or fails, or a test or replay session skips it. */
function startMove(p: RunProgress, step: StepDefinition, attempt: number, at: string, evaluate: Evaluate): Move {
  const srid = stepRunId(p.started.run_id, step.id);
  const skip = (output: Json): Move => ({ kind: 'journal', events: [stepStarted(at, srid, step, attempt), stepFinished(at, srid, { kind: 'skipped', output })] });
  if (step.if !== undefined) {
    const holds = evaluate(step.if);
    if (typeof holds !== 'boolean') {
      const error = { kind: 'expression_error', message: holds.error };
      return { kind: 'end', events: [stepStarted(at, srid, step, attempt), stepFinished(at, srid, { kind: 'failed', error })], status: 'failed', error };
    }
    if (!holds) return skip({ reason: 'if was false' });
  }
  if (step.skipInTest && p.started.session !== 'live') return skip({ reason: 'in_test: skip' });
  return { kind: 'start_step', step, stepRunId: srid, attempt };
}

/** Conditions (CONTRACT 8.2): all must hold, else the run ends `skipped`; one that cannot be evaluated fails it. */
function checkConditions(p: RunProgress, conditions: readonly ConditionDefinition[], at: string, evaluate: Evaluate): Move {
  const results: { name: string; passed: boolean; detail?: Json }[] = [];
  let error: ErrorInfo | undefined;
  for (const c of conditions) {
    const holds = evaluate(c.if);
    if (typeof holds === 'boolean') {
      results.push({ name: c.name, passed: holds });
      continue;
    }
    error = { kind: 'expression_error', message: `condition ${c.name}: ${holds.error}` };
    results.push({ name: c.name, passed: false, detail: { error: holds.error } });
    break;
  }
  const events: JournalEvent[] = [{ type: 'run.conditions', at, run_id: p.started.run_id, results }];
  if (error) return { kind: 'end', events, status: 'failed', error };
  if (results.some((r) => !r.passed)) return { kind: 'end', events, status: 'skipped' };
  return { kind: 'journal', events };
}

/**
 * The previous holder died: a step running then (not the one the run is parked on) runs again, unless it was running
 * at each of the last CRASHES_TO_DEAD_LETTER deaths (`engine_crash`). A send is recovered by its hash, never run
 * again, so a crash during one is no sign of a poison run.
 */
function crashMove(p: RunProgress, definition: Walk, crash: NonNullable<Circumstances['crash']>, at: string): Move | undefined {
  const parkedOn = p.parked?.stepRunId;
  const running = [...p.steps.values()].find((s) => s.status === 'running' && s.stepRunId !== parkedOn);
  if (!running || definition.steps.find((s) => s.id === running.stepId)?.type === 'send') return undefined;
  if (!crash.noted) {
    return { kind: 'note_crash', stepRunId: running.stepRunId, count: crash.stepRunId === running.stepRunId ? crash.count + 1 : 1 };
  }
  if (crash.stepRunId !== running.stepRunId || crash.count < CRASHES_TO_DEAD_LETTER) return undefined;
  const error = { kind: 'engine_crash', message: `step ${running.stepId} was running each of the ${crash.count} times its engine process died` };
  return { kind: 'end', events: [stepFinished(at, running.stepRunId, { kind: 'failed', error })], status: 'dead_lettered', error };
}

/** A parked run claimed again: still waiting (parked again, due when it should be), or its wait is over. */
function resumeParked(p: RunProgress, definition: Walk, now: number, c: Circumstances): Move {
  const parked = p.parked!;
  const at = toIso(now);
  const step = [...p.steps.values()].find((s) => s.stepRunId === parked.stepRunId);
  const stepDef = step && definition.steps.find((s) => s.id === step.stepId);
  if (step && !stepDef) {
    return { kind: 'end', events: [], status: 'dead_lettered', error: { kind: 'definition_changed', message: `step ${step.stepId} is no longer in workflow ${definition.name}` } };
  }
  const resumed = runResumed(at, p.started.run_id);
  if (parked.kind === 'approval' && step) {
    const approval = p.approvals.get(step.stepRunId);
    if (approval?.status === 'approved') {
      return { kind: 'journal', events: [resumed, stepFinished(at, step.stepRunId, { kind: 'succeeded', output: { decision: 'approved', by: approval.by, reason: approval.reason } })] };
    }
    if (approval?.status === 'rejected' || approval?.status === 'expired') {
      const error = approval.status === 'rejected'
        ? { kind: 'approval_rejected', message: `rejected${approval.by ? ` by ${approval.by}` : ''}` }
        : { kind: 'approval_expired', message: 'the approval expired undecided' };
      return { kind: 'end', events: [resumed, stepFinished(at, step.stepRunId, { kind: 'failed', error })], status: 'failed', error };
    }
    const expiresAt = approval?.expiresAt ?? parked.expiresAt;
    if (expiresAt === null || now < expiresAt) return { kind: 'park', events: [], dueAt: expiresAt };
    const error = { kind: 'approval_expired', message: 'the approval expired undecided' };
    const decided: JournalEvent[] = approval ? [{ type: 'approval.decided', at, approval_id: approval.approvalId, decision: 'expired' }] : [];
    return { kind: 'end', events: [...decided, resumed, stepFinished(at, step.stepRunId, { kind: 'failed', error })], status: 'failed', error };
  }
  const waited: Move = parked.dueAt !== null && now < parked.dueAt
    ? { kind: 'park', events: [], dueAt: parked.dueAt }
    : parked.kind === 'delay' && step?.status === 'running' && stepDef?.type === 'delay'
      ? { kind: 'journal', events: [resumed, stepFinished(at, step.stepRunId, { kind: 'succeeded', output: { waited_until: toIso(parked.dueAt) } })] }
      // A retry wait (or a wait this engine does not own a step for) is over: the run goes on.
      : { kind: 'journal', events: [resumed] };
  if (parked.kind === 'event' && step?.status === 'running' && stepDef?.type === 'wait_event') {
    return { kind: 'resume_wait', step: stepDef, stepRunId: step.stepRunId, attempt: step.attempts, otherwise: waited };
  }
  if (parked.kind === 'tx' && step?.status === 'running' && stepDef?.type === 'send') {
    return { kind: 'recover_send', step: stepDef, stepRunId: step.stepRunId, attempt: step.attempts, parked: true, otherwise: waited };
  }
  return waited;
}
