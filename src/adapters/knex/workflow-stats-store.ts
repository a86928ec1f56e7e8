import type { WorkflowStats } from '../../domain/session';
import { insertRows, type Db } from './bulk';
import { dialectOf } from './dialect';
import { WORKFLOW_STATS_COLUMNS, workflowStatsToRow } from './rows';

/** `held` is the row as stored, `excluded` what the append adds (see the domain's `addStats`, which this mirrors). */
const later = (column: string, greatest: (a: string, b: string) => string): string =>
  `"${column}" = CASE WHEN excluded."${column}" IS NULL THEN workflow_stats."${column}" WHEN workflow_stats."${column}" IS NULL THEN excluded."${column}"
     ELSE ${greatest(`workflow_stats."${column}"`, `excluded."${column}"`)} END`;
const NEWER_ERROR = 'excluded.recent_error_at IS NOT NULL AND (workflow_stats.recent_error_at IS NULL OR excluded.recent_error_at >= workflow_stats.recent_error_at)';

/**
 * Adds what an append changed in workflows' overview statistics to the stored rows, in SQL: counts are
 * increments, times keep the latest, the most recent error wins, duration histograms merge. Nothing is read
 * first, so an append costs one statement for them, and two writers cannot lose each other's counts.
 */
export async function addWorkflowStats(db: Db, added: readonly WorkflowStats[]): Promise<void> {
  if (!added.length) return;
  const dialect = dialectOf(db);
  const set = [
    later('last_run_at', dialect.greatest), later('last_success_at', dialect.greatest), later('last_failure_at', dialect.greatest),
    ...['success_count', 'failure_count', 'tx_count'].map((c) => `"${c}" = workflow_stats."${c}" + excluded."${c}"`),
    `recent_error_kind = CASE WHEN ${NEWER_ERROR} THEN excluded.recent_error_kind ELSE workflow_stats.recent_error_kind END`,
    `recent_error_at = CASE WHEN ${NEWER_ERROR} THEN excluded.recent_error_at ELSE workflow_stats.recent_error_at END`,
    `durations = CASE WHEN excluded.durations = '{}' THEN workflow_stats.durations ELSE ${dialect.mergeCounts('workflow_stats.durations', 'excluded.durations')} END`,
  ];
  await insertRows(db, 'workflow_stats', WORKFLOW_STATS_COLUMNS, added.map(workflowStatsToRow), { conflictKey: ['workflow'], conflictSet: set.join(',\n') });
}
