import type { DurationHistogram } from './duration-histogram';

/** An isolated backtest (replay) or dry-run (test) session. */
export interface ReplaySession {
  readonly sessionId: string;
  readonly kind: 'replay' | 'test';
  readonly workflow: string;
  readonly createdAt: number;
  finishedAt: number | null;
  runCount: number;
  readonly fromBlock: number | null;
  readonly toBlock: number | null;
  readonly note: string | null;
}

/** The engine's last word on a workflow's trigger state. */
export interface WorkflowStateRecord {
  readonly workflow: string;
  paused: boolean;
  trigger: string | null;
  network: string | null;
  cursorBlock: number | null;
  headBlock: number | null;
  updatedAt: number;
}

/** What the workflows overview needs, kept up to date as the journal is written (no scan of runs). */
export interface WorkflowStats {
  readonly workflow: string;
  lastRunAt: number | null;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  /** Runs that ended `succeeded`. */
  successCount: number;
  /** Runs that ended `failed` or `dead_lettered`. */
  failureCount: number;
  /** Sends that got a transaction hash. */
  txCount: number;
  recentErrorKind: string | null;
  recentErrorAt: number | null;
  /** Durations of finished runs. */
  readonly durations: DurationHistogram;
}
