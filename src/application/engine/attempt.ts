import type { StepDefinition } from '../../domain/engine/workflow';
import type { LeaseFence } from '../ports/journal-writer';
import type { ErrorInfo, JournalEvent, Json, WaitKind } from '../../domain/journal/journal-event';

/** How one attempt of a step ended, or that it parked the run. */
export type Attempted =
  /** `events`: journaled with the step's end, before it (a send's settle, a simulation). */
  | { readonly kind: 'succeeded'; readonly output: Json; readonly events?: readonly JournalEvent[] }
  /** `retryable` false: no further attempt whatever the retry policy (a 4xx answer). */
  | { readonly kind: 'failed'; readonly error: ErrorInfo; readonly output?: Json; readonly retryable?: boolean; readonly events?: readonly JournalEvent[] }
  | {
    readonly kind: 'parked';
    /** Journaled with the step's start, before the run.parked (e.g. approval.requested). */
    readonly events: readonly JournalEvent[];
    readonly wait: { readonly kind: WaitKind; readonly dueAt: number | null; readonly expiresAt: number | null };
  };

/** A step attempt ready to go: its resolved input (journaled with step.started) and the attempt itself. */
export interface PreparedAttempt {
  readonly input: Json;
  /** The attempt acts outside chainflow (calls a service, broadcasts): its start is journaled before it runs. */
  readonly sideEffects: boolean;
  run(): Promise<Attempted>;
}

export interface AttemptContext {
  readonly runId: string;
  readonly stepRunId: string;
  readonly attempt: number;
  /** The expression context: trigger, steps, run. */
  readonly scope: Readonly<Record<string, unknown>>;
  /** The driver's lease on the run: a step's own journal writes carry it too (CONTRACT 8.7). */
  readonly fence?: LeaseFence;
  /** The workflow's steps after this one (an approval looks ahead at the send it guards). */
  readonly upcoming?: readonly StepDefinition[];
}
