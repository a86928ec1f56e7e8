import { DurationHistogram } from './duration-histogram';

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

/**
 * How far an event trigger's cursor (the last block it read) is behind the head it last saw, in blocks: null until
 * both are known. Never negative: a head read before the cursor moved past it is no lag.
 */
export function lagBlocks(cursorBlock: number | null, headBlock: number | null): number | null {
  return cursorBlock !== null && headBlock !== null ? Math.max(0, headBlock - cursorBlock) : null;
}

/** The engine's last word on a workflow's trigger state. */
export interface WorkflowStateRecord {
  readonly workflow: string;
  /** null while the journal never said (a first word of the log poller carries only blocks): the config's `paused` holds. */
  paused: boolean | null;
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

export function emptyStats(workflow: string): WorkflowStats {
  return {
    workflow, lastRunAt: null, lastSuccessAt: null, lastFailureAt: null, successCount: 0, failureCount: 0,
    txCount: 0, recentErrorKind: null, recentErrorAt: null, durations: DurationHistogram.empty(),
  };
}

const later = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

/**
 * Statistics held plus what an append adds (see `statsOf`): counts add up, the latest times win, the most recent
 * error wins (the added one on a tie), durations merge. The knex writer does the same in SQL.
 */
export function addStats(held: WorkflowStats | undefined, added: WorkflowStats): WorkflowStats {
  if (!held) return { ...added, durations: DurationHistogram.empty().plus(added.durations) };
  const newerError = added.recentErrorAt !== null && (held.recentErrorAt === null || added.recentErrorAt >= held.recentErrorAt);
  return {
    workflow: held.workflow,
    lastRunAt: later(held.lastRunAt, added.lastRunAt),
    lastSuccessAt: later(held.lastSuccessAt, added.lastSuccessAt),
    lastFailureAt: later(held.lastFailureAt, added.lastFailureAt),
    successCount: held.successCount + added.successCount,
    failureCount: held.failureCount + added.failureCount,
    txCount: held.txCount + added.txCount,
    recentErrorKind: newerError ? added.recentErrorKind : held.recentErrorKind,
    recentErrorAt: newerError ? added.recentErrorAt : held.recentErrorAt,
    durations: held.durations.plus(added.durations),
  };
}
