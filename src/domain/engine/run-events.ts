import type { ErrorInfo, JournalEvent, Json, WaitKind } from '../journal/journal-event';
import { toIso } from '../time';
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

/** The run waits for `wait` on the step run (CONTRACT 8.2): `due_at` and `expires_at` only where they are set. */
export function runParked(
  at: string, stepRunId: string, wait: { readonly kind: WaitKind; readonly dueAt: number | null; readonly expiresAt: number | null },
): JournalEvent {
  return {
    type: 'run.parked', at, run_id: runIdOf(stepRunId), wait_kind: wait.kind, step_run_id: stepRunId,
    ...(wait.dueAt !== null ? { due_at: toIso(wait.dueAt) } : {}), ...(wait.expiresAt !== null ? { expires_at: toIso(wait.expiresAt) } : {}),
  };
}

export function runResumed(at: string, runId: string): JournalEvent {
  return { type: 'run.resumed', at, run_id: runId };
}
