import { emptyStats, type WorkflowStats } from '../../session';
import type { RunEndStatus } from '../journal-event';
import type { Fold } from './fold';

/**
 * What this append adds to a workflow's overview statistics (a delta, created empty), marked to be written: the
 * storage adds it to what it holds (`addStats`; in SQL, increments), so that two writers never lose each other's
 * counts and no append reads the statistics first.
 */
export function statsOf(f: Fold, workflow: string): WorkflowStats {
  let stats = f.ws.workflowStats.get(workflow);
  if (!stats) {
    stats = emptyStats(workflow);
    f.ws.workflowStats.set(workflow, stats);
  }
  f.ch.workflowStats.add(workflow);
  return stats;
}

/** A run started at `at`. */
export function countStart(stats: WorkflowStats, at: number): void {
  stats.lastRunAt = Math.max(stats.lastRunAt ?? at, at);
}

/**
 * A run ended: success / failure counts, last success / failure, duration, most recent error. Called once per
 * run, since a finished run cannot finish again (see `finishRun`).
 */
export function countFinish(stats: WorkflowStats, status: RunEndStatus, errorKind: string | undefined, at: number, durationMs: number): void {
  if (status === 'succeeded') {
    stats.successCount++;
    stats.lastSuccessAt = Math.max(stats.lastSuccessAt ?? at, at);
  } else if (status === 'failed' || status === 'dead_lettered') {
    stats.failureCount++;
    stats.lastFailureAt = Math.max(stats.lastFailureAt ?? at, at);
  }
  if (errorKind !== undefined && at >= (stats.recentErrorAt ?? at)) {
    stats.recentErrorKind = errorKind;
    stats.recentErrorAt = at;
  }
  stats.durations.add(durationMs);
}
