import type { PinnedDefinition } from '../../domain/engine/pinned-definition';
import type { WorkflowDefinition } from '../../domain/engine/workflow';
import type { JournalEvent } from '../../domain/journal/journal-event';

/** A run an engine process took to drive: it holds the run's lease until it parks, finishes or the lease runs out. */
export interface ClaimedRun {
  readonly runId: string;
  readonly workflow: string;
  /**
   * The run's first events as recorded when it was enqueued (run.started, and session.started for a test
   * session): journaled by whoever drives the run first, should the starter have died before it journaled them.
   */
  readonly start: readonly JournalEvent[];
  /**
   * The lease's fencing token: greater at each claim of the run (FIRST_FENCE for a run enqueued held by its
   * starter). Every journal write of the run by its driver carries it (see LeaseFence).
   */
  readonly fence: number;
  /** The hash of the definition the run started with (see `pinnedDefinition`); null for a run enqueued without one. */
  readonly definitionHash?: string | null;
  /** The previous holder's lease ran out (its process died or stalled) instead of being released. */
  readonly expired: boolean;
  /** The step run that was running at the last expired lease, and how many expired leases in a row found it running. */
  readonly crashStepRunId: string | null;
  readonly crashCount: number;
  /**
   * The run's journal stream as the claim found it, read by the claim itself (one trip where it would be two),
   * where nobody can have written to it since: the run was held by none when the claim looked, and no other claim
   * came between. Undefined: the driver reads the stream (a lease that ran out, whose holder may still be writing;
   * a store that does not read it with the claim).
   */
  readonly stream?: readonly JournalEvent[];
  /**
   * Enqueued by this very process a moment ago, held since, and nothing journaled for it yet: its driver need not
   * read the run's stream (it is `start`, to be journaled). Never set by a claim from storage.
   */
  readonly fresh?: boolean;
}

/** The fencing token of a run enqueued held by its starter (an enqueue by none holds no token until its first claim). */
export const FIRST_FENCE = 1;

/** A run to enqueue (the outbox of a start): its id, workflow, first events, and an optional delivery key. */
export interface RunToEnqueue {
  readonly runId: string;
  readonly workflow: string;
  readonly start: readonly JournalEvent[];
  /** When the run was started (epoch ms): its delivery keys are remembered from then. */
  readonly at: number;
  /** A repeated delivery with one of these keys (a webhook's signature, an Idempotency-Key, a cron tick) enqueues nothing. */
  readonly dedupeKeys?: readonly string[];
  /**
   * The run is the workflow's cron tick `expected` (epoch ms): in the same transaction the workflow's next tick moves
   * from `expected` to `next`, and if it was not at `expected` (another process fired that tick) nothing is written.
   */
  readonly cronTick?: { readonly expected: number; readonly next: number };
  /** The definition the run starts with, kept (by its hash) for as long as the run goes on (CONTRACT 8.7). */
  readonly definition?: PinnedDefinition;
}

/**
 * The engine's durable schedule: which runs are to be driven, when, and by which engine process (a lease with
 * an expiry, so that a run left by a dead process is taken on by another). Every method is one atomic step in
 * storage, safe under several engine processes sharing the database (on PostgreSQL a claim is
 * `SELECT … FOR UPDATE SKIP LOCKED`; on SQLite the write lock serializes claims).
 */
export interface EngineStore {
  /**
   * Records a new run held by `owner` (empty: by none, due at once) until `leaseUntil` (epoch ms), unless one of its
   * `dedupeKeys` was seen: then nothing is written and the earlier run's id is returned with `created: false`. A
   * cron tick's run (`cronTick`) is recorded with the move of the tick, or not at all (`created: false`, and the run id
   * of that tick when one is known, else '').
   */
  enqueue(run: RunToEnqueue, owner: string, leaseUntil: number): Promise<{ runId: string; created: boolean }>;
  /**
   * Leases to `owner` up to `limit` runs due at `now` (due_at <= now) that no live lease holds (none, or expired),
   * earliest due first.
   */
  claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<ClaimedRun[]>;
  /**
   * Extends the leases `owner` holds on these runs to `leaseUntil` (by `leaseUntil - now` from the database's own
   * clock where it keeps lease times, CONTRACT 10); returns the ids it still holds.
   */
  renew(owner: string, runIds: readonly string[], now: number, leaseUntil: number): Promise<string[]>;
  /** The run parked: `owner` lets it go, to be claimed again at `dueAt` (null: only when woken). */
  release(owner: string, runId: string, dueAt: number | null): Promise<void>;
  /** The run ended: it leaves the schedule. */
  remove(runId: string): Promise<void>;
  /** Makes a parked run due at `at` (an approval was decided, a run was cancelled). No-op for an unknown run. */
  wake(runId: string, at: number): Promise<void>;
  /** Records which step run was running when the run's lease expired, and how often in a row. */
  noteCrash(runId: string, stepRunId: string | null, count: number): Promise<void>;
  /** A definition kept by `enqueue`, by its hash (secrets left out, see PinnedDefinition); undefined if none. */
  pinnedDefinition(hash: string): Promise<WorkflowDefinition | undefined>;
  /** The fencing token of the run's current lease (undefined: the run is not in the schedule). */
  fenceOf(runId: string): Promise<number | undefined>;
  /**
   * When the earliest lease held by another owner than `owner` runs out, on the caller's clock (`now` plus what is
   * left of it by the database's clock where it keeps lease times); undefined when none is held. The engine looks
   * again then rather than at its next poll, so that a dead process's runs are taken over when its leases end.
   */
  nextLeaseEnd(owner: string, now: number): Promise<number | undefined>;
  /** Runs whose lease is live at `now`, per workflow. */
  heldCounts(now: number): Promise<Map<string, number>>;
  /** The run that one of these delivery keys started (still remembered), or undefined: a repeat's answer when no run may start. */
  deliveryRun(dedupeKeys: readonly string[]): Promise<string | undefined>;
  /** Forgets the delivery keys recorded before `before` (epoch ms): a repeat of such a delivery starts a new run. Returns how many. */
  forgetDeliveries(before: number): Promise<number>;
  /** The next due tick of a cron workflow (epoch ms), if one is recorded. */
  cronNext(workflow: string): Promise<number | undefined>;
  /**
   * Moves a cron workflow's next tick from `expected` (undefined: none recorded yet) to `next`; true for the one
   * process whose move took effect (the tick is fired by that process only).
   */
  advanceCron(workflow: string, expected: number | undefined, next: number): Promise<boolean>;
}
export const EngineStore = Symbol('EngineStore');
