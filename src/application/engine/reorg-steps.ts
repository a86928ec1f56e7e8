import { runProgress } from '../../domain/engine/run-progress';
import { NON_RETRYABLE, retryDelayMs, type StepDefinition } from '../../domain/engine/workflow';
import type { ErrorInfo, JournalEvent, Json } from '../../domain/journal/journal-event';
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

/**
 * Runs a workflow's `on_reorg` steps for one response (CONTRACT 8.6), in order, each to its end: its `if`, then its
 * attempts with the step's retry policy, and one `reorg.step` journaled per step (the contract's event keeps no
 * attempts). The context is the affected run's (`trigger`, `steps`, `run`) plus `reorg { run_id, depth, block,
 * removed_block_hash }`. Steps whose `reorg.step` is journaled already (a crash in the middle) are not run again; the
 * one that was running is (at-least-once, as any step). A step that would park its run (approval, delay, a send
 * waiting for its receipt, wait_event) has no run to park: it fails with `unsupported_step`.
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
    const progress = runProgress(affected);
    const done = new Set(affected.flatMap((e) => (e.type === 'reorg.step' && e.reorg_id === response.reorgId ? [e.step_id] : [])));
    const scope = { ...(progress ? runScope(progress) : {}), reorg: reorgScope(response) };
    for (const step of steps) {
      if (done.has(step.id)) continue;
      const end = await this.runStep(response, step, scope);
      await journal({ type: 'reorg.step', at: toIso(this.now()), reorg_id: response.reorgId, step_id: step.id, ...end });
    }
  }

  private async runStep(response: ReorgResponse, step: StepDefinition, scope: Record<string, unknown>): Promise<ReorgStepEnd> {
    if (step.if !== undefined) {
      try {
        if (!evaluateBool(step.if, this.expressions, scope)) return { status: 'skipped' };
      } catch (err) {
        if (err instanceof ExpressionError) return { status: 'failed', error: { kind: 'expression_error', message: err.message } };
        throw err;
      }
    }
    let last: ReorgStepEnd = { status: 'failed', error: { kind: 'unsupported_step', message: 'no attempt ran' } };
    for (let attempt = 1; attempt <= step.retry.attempts; attempt++) {
      if (attempt > 1) await this.sleep(retryDelayMs(step.retry, attempt));
      const ctx = { runId: response.runId, stepRunId: `${response.reorgId}.${step.id}`, attempt, scope };
      let ended;
      try {
        ended = await this.runners.prepare(step, ctx).run();
      } catch (err) {
        if (err instanceof ExpressionError) return { status: 'failed', error: { kind: 'expression_error', message: err.message } };
        throw err;
      }
      if (ended.kind === 'succeeded') return { status: 'succeeded', output: ended.output };
      if (ended.kind === 'parked') {
        return { status: 'failed', error: { kind: 'unsupported_step', message: `${step.type} steps wait, and an on_reorg response has no run to park` } };
      }
      last = { status: 'failed', error: ended.error, ...(ended.output !== undefined ? { output: ended.output } : {}) };
      if (ended.retryable === false || NON_RETRYABLE.has(ended.error.kind)) break;
    }
    return last;
  }
}

function reorgScope(r: ReorgResponse): Record<string, unknown> {
  return { run_id: r.runId, depth: r.depth, block: Number(r.block), removed_block_hash: r.removedBlockHash };
}
