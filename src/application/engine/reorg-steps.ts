import { decide, type Circumstances, type Evaluate, type Move, type Walk } from '../../domain/engine/decider';
import { advance, runProgress, type RunProgress } from '../../domain/engine/run-progress';
import { stepFinished, stepStarted, type StepEnd } from '../../domain/engine/run-events';
import type { StepDefinition } from '../../domain/engine/workflow';
import type { ErrorInfo, JournalEvent, Json, RunStarted } from '../../domain/journal/journal-event';
import { toIso } from '../../domain/time';
import type { ReorgResponse } from '../ports/event-cursors';
import { ExpressionError, type Expressions } from '../ports/expressions';
import type { StepRunners } from './step-runners';
import { runScope } from './run-scope';
import { evaluateBool } from './templates';

/** How one on_reorg step ended: the `reorg.step` journaled for it. */
export interface ReorgStepEnd {
  readonly status: 'succeeded' | 'failed' | 'skipped';
  readonly output?: Json;
  readonly error?: ErrorInfo;
}

/** What one walk of a response's on_reorg steps keeps while it goes. */
interface ReorgWalk {
  readonly response: ReorgResponse;
  /** The walk's progress: its journaled `reorg.step` ends, then the attempts of this walk, never journaled as such. */
  readonly p: RunProgress;
  /** The affected run's context (`trigger`, `steps`, `run`) and `reorg`. */
  readonly base: Record<string, unknown>;
  readonly journal: (e: JournalEvent) => Promise<void>;
  /** The step whose last attempt failed, with that end: journaled if the decider ends the walk on it. */
  failed?: { readonly step: StepDefinition; readonly end: ReorgStepEnd };
  /** The attempt that just failed, until the decider has said what follows (another attempt, or the walk's end). */
  justFailed?: Circumstances['failed'];
}

/**
 * Runs a workflow's `on_reorg` steps for one response (CONTRACT 8.6: "same step types and retries as `steps`"): the
 * run's decider walks them as `{ conditions: [], steps: on_reorg }`, so their `if`, retries and the end of the walk at
 * a failed step are those of a run. Each step's end is journaled as one `reorg.step` (the contract's event keeps no
 * attempts, parks or leases); a retry's wait is slept here. The context is the affected run's (`trigger`, `steps`,
 * `run`) plus `reorg { run_id, depth, block, removed_block_hash }`, and in `steps` the on_reorg steps ended before.
 * Steps whose `reorg.step` is journaled already (a crash in the middle) are not run again; the one that was running
 * is (at-least-once, as any step). A step that would park its run (approval, delay, a send waiting for its receipt,
 * wait_event) has no run to park: it fails with `unsupported_step`.
 */
export class ReorgSteps {
  constructor(
    private readonly runners: StepRunners,
    private readonly expressions: Expressions,
    private readonly now: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  /** Runs the steps not yet journaled, journaling each end through `journal`. */
  async run(response: ReorgResponse, steps: readonly StepDefinition[], affected: readonly JournalEvent[], journal: (e: JournalEvent) => Promise<void>): Promise<void> {
    const run = runProgress(affected);
    const base = { ...(run ? runScope(run) : {}), reorg: reorgScope(response) };
    const w: ReorgWalk = { response, p: walkProgress(response, run?.started, affected), base, journal };
    const definition: Walk = { name: response.workflow, conditions: [], steps };
    const evaluate: Evaluate = (expression) => {
      try {
        return evaluateBool(expression, this.expressions, scopeOf(w));
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        return { error: err.message };
      }
    };
    for (;;) {
      const move = decide(w.p, definition, this.now(), { evaluate, failed: w.justFailed });
      w.justFailed = undefined;
      if (!(await this.perform(w, move))) return;
    }
  }

  /** Performs a move; false when the walk is over. */
  private async perform(w: ReorgWalk, move: Move): Promise<boolean> {
    switch (move.kind) {
      case 'remove':
        return false;
      case 'journal':
        await this.fold(w, move.events);
        return true;
      case 'start_step':
        await this.attempt(w, move.step, move.stepRunId, move.attempt);
        return true;
      case 'park':
        // The decider parks a run for a retry's backoff: a response has no run to park, it waits here.
        if (w.failed && move.dueAt !== null) {
          // Then the decider, asked without the failure, finds its wait over and starts the next attempt.
          await this.sleep(Math.max(0, move.dueAt - this.now()));
          return true;
        }
        return this.parkRefused(w, move);
      case 'end':
        await this.fold(w, move.events);
        // The step that failed last ends the walk (its later steps do not run, as in a run): its end is journaled.
        if (w.failed) await this.journalEnd(w, w.failed.step.id, w.failed.end);
        return false;
      default:
        // Crash, stop and recovery moves need a run's lease and parks, which a walk never has.
        throw new Error(`on_reorg walk of reorg ${w.response.reorgId}: unexpected move ${move.kind}`);
    }
  }

  /**
   * A park that is no retry's wait (the walk never records one, so the decider should not ask for it): the step it
   * parks on fails `unsupported_step` and ends the walk, as a step that would park does.
   */
  private async parkRefused(w: ReorgWalk, move: Extract<Move, { kind: 'park' }>): Promise<false> {
    const parkedOn = move.events.flatMap((e) => (e.type === 'run.parked' && e.step_run_id ? [e.step_run_id] : []));
    const stepId = [...w.p.steps.values()].find((s) => parkedOn.includes(s.stepRunId))?.stepId ?? w.failed?.step.id;
    if (stepId === undefined) throw new Error(`on_reorg walk of reorg ${w.response.reorgId}: a park on no step`);
    await this.journalEnd(w, stepId, { status: 'failed', error: { kind: 'unsupported_step', message: 'an on_reorg response has no run to park' } });
    return false;
  }

  /** One attempt of the step; its end folded into the walk (a failure is left to the decider). */
  private async attempt(w: ReorgWalk, step: StepDefinition, srid: string, attempt: number): Promise<void> {
    const ctx = { runId: w.response.runId, stepRunId: srid, attempt, scope: scopeOf(w) };
    let end: StepEnd;
    let retryable = true;
    try {
      const ended = await this.runners.prepare(step, ctx).run();
      if (ended.kind === 'parked') {
        end = { kind: 'failed', error: { kind: 'unsupported_step', message: `${step.type} steps wait, and an on_reorg response has no run to park` } };
        retryable = false;
      } else {
        end = ended;
        retryable = ended.kind !== 'failed' || ended.retryable !== false;
      }
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      end = { kind: 'failed', error: { kind: 'expression_error', message: err.message } };
      retryable = false;
    }
    const at = toIso(this.now());
    advance(w.p, stepStarted(at, srid, step, attempt));
    if (end.kind === 'failed') {
      advance(w.p, stepFinished(at, srid, end));
      w.failed = { step, end: { status: 'failed', error: end.error, ...(end.output !== undefined ? { output: end.output } : {}) } };
      w.justFailed = { stepRunId: srid, retryable };
      return;
    }
    w.failed = undefined;
    await this.fold(w, [stepFinished(at, srid, end)]);
  }

  /**
   * Folds the decider's events (a skip, an `if` that fails, or a step's end) into the walk, and journals each step
   * that ended here as its `reorg.step`. A skip keeps no output, as the event always has.
   */
  private async fold(w: ReorgWalk, events: readonly JournalEvent[]): Promise<void> {
    for (const e of events) {
      advance(w.p, e);
      if (e.type !== 'step.finished') continue;
      const step = [...w.p.steps.values()].find((s) => s.stepRunId === e.step_run_id);
      if (!step) continue;
      w.failed = undefined;
      const end: ReorgStepEnd = e.status === 'skipped'
        ? { status: 'skipped' }
        : { status: e.status, ...(e.output !== undefined ? { output: e.output } : {}), ...(e.error ? { error: e.error } : {}) };
      await this.journalEnd(w, step.stepId, end);
    }
  }

  private async journalEnd(w: ReorgWalk, stepId: string, end: ReorgStepEnd): Promise<void> {
    await w.journal({ type: 'reorg.step', at: toIso(this.now()), reorg_id: w.response.reorgId, step_id: stepId, ...end });
  }
}

/**
 * The walk as far as the journal has it: each step whose `reorg.step` of this reorg is journaled is over (one that
 * failed ended the walk). Its step run ids are `<reorg_id>.<step_id>`, as every on_reorg attempt's idempotency key.
 */
function walkProgress(response: ReorgResponse, affected: RunStarted | undefined, stream: readonly JournalEvent[]): RunProgress {
  const at = toIso(response.at);
  const started: RunStarted = affected
    ? { ...affected, run_id: response.reorgId }
    : { type: 'run.started', at, run_id: response.reorgId, workflow: response.workflow, session: 'live', trigger: { kind: 'event' } };
  const p: RunProgress = { started, conditionsChecked: true, steps: new Map(), approvals: new Map(), parked: null, finished: null };
  for (const e of stream) {
    if (e.type !== 'reorg.step' || e.reorg_id !== response.reorgId) continue;
    const status = e.status === 'succeeded' || e.status === 'skipped' ? e.status : 'failed';
    p.steps.set(e.step_id, {
      stepRunId: `${response.reorgId}.${e.step_id}`, stepId: e.step_id, attempts: 1, status, output: e.output ?? null, error: e.error ?? null, finishedAt: null,
    });
    if (status === 'failed') p.finished = 'failed';
  }
  return p;
}

/**
 * A step's context: the affected run's, its `steps` with the on_reorg steps that ended before it (as a run's step
 * sees its earlier steps; one named as a step of the run is then the on_reorg one).
 */
function scopeOf(w: ReorgWalk): Record<string, unknown> {
  const steps: Record<string, unknown> = { ...(w.base.steps as Record<string, unknown> | undefined) };
  for (const s of w.p.steps.values()) if (s.status !== 'running') steps[s.stepId] = { status: s.status, output: s.output };
  return { ...w.base, steps };
}

function reorgScope(r: ReorgResponse): Record<string, unknown> {
  return { run_id: r.runId, depth: r.depth, block: Number(r.block), removed_block_hash: r.removedBlockHash };
}
