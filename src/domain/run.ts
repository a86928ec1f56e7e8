import type { RunEndStatus, SessionKind, WaitKind } from './journal/journal-event';

/** A run's status while it runs is `running`, while parked `waiting`, then how it ended. */
export type RunStatus = 'running' | 'waiting' | RunEndStatus;
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

/** A run as the journal's projection holds it. Times are epoch ms (UTC). */
export interface Run {
  readonly runId: string;
  readonly workflow: string;
  status: RunStatus;
  readonly triggerKind: string;
  readonly session: SessionKind;
  readonly sessionId: string | null;
  network: string | null;
  readonly contract: string | null;
  readonly block: number | null;
  /** Relayers of the run's sends, in order of first use, each once. */
  relayers: string[];
  /** Transaction hashes of the run's sends, each once. */
  txHashes: string[];
  /** Step ids (of the workflow definition) the run started, each once. */
  stepIds: string[];
  errorKind: string | null;
  approvalStatus: ApprovalStatus | null;
  waitKind: WaitKind | null;
  /** When the run parked, the step it parked on, and its due / expiry times (null when not parked). */
  parkedAt: number | null;
  waitStepRunId: string | null;
  dueAt: number | null;
  expiresAt: number | null;
  readonly replayOf: string | null;
  /** When the run started: the `at` of its `run.started`. The pagination key with the id. */
  readonly createdAt: number;
  finishedAt: number | null;
  durationMs: number | null;
}

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'dead_lettered', 'cancelled', 'skipped'];
export const RUN_STATUSES: readonly RunStatus[] = ['running', 'waiting', ...TERMINAL_RUN_STATUSES];
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected', 'expired'];
export const SESSION_KINDS: readonly SessionKind[] = ['live', 'replay', 'test'];
export const WAIT_KINDS: readonly WaitKind[] = ['tx', 'delay', 'event', 'approval'];

/** Adds `value` to a list that holds each value once; tells whether it was new. */
export function addOnce(list: string[], value: string): boolean {
  if (list.includes(value)) return false;
  list.push(value);
  return true;
}
