import type { ErrorInfo, JournalEvent, Json } from '../journal/journal-event';
import type { StepDefinition } from './workflow';

/** How a step attempt ended, as the journal's step.finished tells it. */
export type StepEnd =
  | { readonly kind: 'succeeded'; readonly output?: Json }
  | { readonly kind: 'failed'; readonly error: ErrorInfo; readonly output?: Json }
  | { readonly kind: 'skipped'; readonly output: Json };

/** The run a step run belongs to: its id is `<run_id>.<step_id>` and step ids hold no dot. */
function runIdOf(stepRunId: string): string {
  return stepRunId.slice(0, stepRunId.lastIndexOf('.'));
}

/** `input` absent or null: the attempt never got as far as rendering its fields (a skip, a failed `if`). */
export function stepStarted(at: string, stepRunId: string, step: StepDefinition, attempt: number, input?: Json): JournalEvent {
  return {
    type: 'step.started', at, run_id: runIdOf(stepRunId), step_run_id: stepRunId, step_id: step.id, step_type: step.type, attempt,
    ...(input !== undefined && input !== null ? { input } : {}),
  };
}

export function stepFinished(at: string, stepRunId: string, end: StepEnd): JournalEvent {
  return {
    type: 'step.finished', at, run_id: runIdOf(stepRunId), step_run_id: stepRunId, status: end.kind,
    ...(end.output !== undefined && end.output !== null ? { output: end.output } : {}),
    ...(end.kind === 'failed' ? { error: end.error } : {}),
  };
}

export function runResumed(at: string, runId: string): JournalEvent {
  return { type: 'run.resumed', at, run_id: runId };
}
