import type { JournalEvent, SendSettled } from '../../domain/journal/journal-event';

/**
 * Runs that no engine drives but that end with their send (a relayer top-up): the send watcher asks this port what
 * a settle ends, so that the send path does not know the features that start such runs.
 */
export interface UnattendedRuns {
  /** The events that end the run of `stream` after `settled` (journaled in the settle's own append); none for a driven run. */
  ending(stream: readonly JournalEvent[], settled: SendSettled): JournalEvent[];
  /** What else must follow once `ending` ended the run (an audit row completed). */
  complete(runId: string, settled: SendSettled): Promise<void>;
}
export const UnattendedRuns = Symbol('UnattendedRuns');
