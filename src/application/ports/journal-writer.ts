import type { JournalEvent } from '../../domain/journal/journal-event';

export interface AppendResult {
  /** Events applied for the first time. */
  readonly applied: number;
  /** Events skipped because the same event was already in the journal. */
  readonly duplicates: number;
}

/**
 * The lease an engine process holds on a run, as a fencing token (CONTRACT 8.7): a write given one is refused with
 * LeaseLostError, and nothing of it is kept, unless the run's lease still carries that very token. Each claim of a
 * run gives a greater token, so a process that lost its lease can never write over its successor.
 */
export interface LeaseFence {
  readonly runId: string;
  readonly token: number;
}

/** What else an append does, in its own transaction (all of it or nothing). */
export interface AppendOptions {
  /** The writer drives the run under this lease; none for writes that are no leased engine's (imports, approvals, cancels). */
  readonly fence?: LeaseFence;
  /**
   * Makes the parked run due at `at` (epoch ms) with the events (EngineStore.wake): an approval decided and its run's
   * wake are never one without the other, whatever dies between.
   */
  readonly wake?: { readonly runId: string; readonly at: number };
  /**
   * The run (its id) leaves the engine's schedule with the events (EngineStore.remove): a run's end and its leaving
   * are one write, and one trip fewer.
   */
  readonly unschedule?: string;
}

/** The one way into the journal: appends events and updates the projections in the same transaction. */
export interface JournalWriter {
  /**
   * Appends events atomically: all of them, or (on a JournalRejectedError, or a LeaseLostError for a fence no longer
   * held) none, together with what `options` asks in the same transaction.
   */
  append(events: readonly JournalEvent[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Appends a stream of batches as one transaction: all or nothing. A JournalRejectedError's index counts
   * events from the start of the stream. `onBatch` is told the running totals after each batch.
   */
  appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult>;
}
export const JournalWriter = Symbol('JournalWriter');
