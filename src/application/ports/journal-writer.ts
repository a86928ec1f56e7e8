import type { JournalEvent } from '../../domain/journal/journal-event';

export interface AppendResult {
  /** Events applied for the first time. */
  readonly applied: number;
  /** Events skipped because the same event was already in the journal. */
  readonly duplicates: number;
}

/** The one way into the journal: appends events and updates the projections in the same transaction. */
export interface JournalWriter {
  /** Appends events atomically: all of them, or (on a JournalRejectedError) none. */
  append(events: readonly JournalEvent[]): Promise<AppendResult>;
  /**
   * Appends a stream of batches as one transaction: all or nothing. A JournalRejectedError's index counts
   * events from the start of the stream. `onBatch` is told the running totals after each batch.
   */
  appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult>;
}
export const JournalWriter = Symbol('JournalWriter');
