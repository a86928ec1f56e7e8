import { InvalidTransitionError } from './errors';
import type { Mutable } from './mutable';
import type { RunEndStatus, SessionKind, WaitKind } from './journal/journal-event';

/** A run's status while it runs is `running`, while parked `waiting`, then how it ended. */
export type RunStatus = 'running' | 'waiting' | RunEndStatus;
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

/**
 * A run as the journal's projection holds it. Times are epoch ms (UTC). Its lifecycle fields (status, wait,
 * end) are read-only here: they change only through the transitions below, which refuse what the lifecycle
 * forbids.
 */
export interface Run {
  readonly runId: string;
  readonly workflow: string;
  readonly status: RunStatus;
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
  readonly waitKind: WaitKind | null;
  /** When the run parked, the step it parked on, and its due / expiry times (null when not parked). */
  readonly parkedAt: number | null;
  readonly waitStepRunId: string | null;
  readonly dueAt: number | null;
  readonly expiresAt: number | null;
  readonly replayOf: string | null;
  /** When the run started: the `at` of its `run.started`. The pagination key with the id. */
  readonly createdAt: number;
  readonly finishedAt: number | null;
  readonly durationMs: number | null;
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

// The run's lifecycle (CONTRACT 8.2):
//
//   running --run.parked--> waiting --run.resumed--> running
//   running | waiting --run.finished--> finished, with its end status, for good
//
// A step starts only while the run is running (a retry waits parked, then resumes, then starts again). A
// finished run takes no move of its own any more: no park, resume, second end, step, condition check,
// simulation, budget check, new send or approval. What may still arrive for it are its sends' later events (a
// send in flight settles after its run ended, CONTRACT 8.4 and 8.5) and reorg responses (CONTRACT 8.6), which
// are not moves of the run.

/** Whether the run ended (with any end status). */
export function isFinished(run: Run): boolean {
  return run.status !== 'running' && run.status !== 'waiting';
}

/** Refuses a move of a finished run; `move` names it (the journal event type). */
export function assertRunOpen(run: Run, move: string): void {
  if (isFinished(run)) throw finished(run, `takes no ${move}`);
}

/** A step starts (any attempt): only while the run is running. Tells whether the step id is new to the run. */
export function startStep(run: Run, stepId: string): boolean {
  if (run.status === 'waiting') throw new InvalidTransitionError(`run_id: the run is parked (${run.waitKind}): a step starts only after run.resumed`);
  if (isFinished(run)) throw finished(run, 'starts no step');
  return addOnce(run.stepIds, stepId);
}

/** The run parks on a wait (a step run, a due time, an expiry): only a running run parks. */
export function parkRun(run: Run, kind: WaitKind, stepRunId: string | null, dueAt: number | null, expiresAt: number | null, at: number): void {
  if (run.status === 'waiting') throw new InvalidTransitionError(`run_id: the run is already parked (${run.waitKind}): run.resumed comes before another run.parked`);
  if (isFinished(run)) throw finished(run, 'cannot be parked');
  const r = run as Mutable<Run>;
  r.status = 'waiting';
  r.waitKind = kind;
  r.parkedAt = at;
  r.waitStepRunId = stepRunId;
  r.dueAt = dueAt;
  r.expiresAt = expiresAt;
}

/** A parked run's wait is over: it runs again. */
export function resumeRun(run: Run): void {
  if (run.status === 'running') throw new InvalidTransitionError(`run_id: the run is not parked: run.resumed needs a run.parked before it`);
  if (isFinished(run)) throw finished(run, 'cannot be resumed');
  const r = run as Mutable<Run>;
  r.status = 'running';
  clearWait(r);
}

/**
 * The run ends (running or parked) with `status`, once: a finished run cannot finish again, so whatever counts
 * finished runs counts each once. `errorKind`: the end's error, if any. Returns the run's duration (ms).
 */
export function finishRun(run: Run, status: RunEndStatus, errorKind: string | undefined, at: number): number {
  if (isFinished(run)) throw finished(run, 'cannot finish again');
  const r = run as Mutable<Run>;
  const durationMs = Math.max(0, at - run.createdAt);
  r.status = status;
  r.finishedAt = at;
  r.durationMs = durationMs;
  if (errorKind !== undefined) r.errorKind = errorKind;
  else if (status === 'succeeded') r.errorKind = null;
  clearWait(r);
  return durationMs;
}

function clearWait(r: Mutable<Run>): void {
  r.waitKind = null;
  r.parkedAt = null;
  r.waitStepRunId = null;
  r.dueAt = null;
  r.expiresAt = null;
}

function finished(run: Run, what: string): InvalidTransitionError {
  return new InvalidTransitionError(`run_id: the run already ${run.status}: a finished run ${what}`);
}
