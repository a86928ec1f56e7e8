import { inject, injectable } from 'inversify';
import { manualRunKey, parseIdempotencyKey } from '../../domain/engine/idempotency-key';
import { pinDefinition, type PinnedDefinition } from '../../domain/engine/pinned-definition';
import { newRunId } from '../../domain/engine/run-id';
import type { WorkflowDefinition } from '../../domain/engine/workflow';
import { ConflictError, NotFoundError } from '../../domain/errors';
import type { JournalEvent, Json } from '../../domain/journal/journal-event';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { EngineStore } from '../ports/engine-store';
import { JournalWriter } from '../ports/journal-writer';
import { WorkflowStates } from '../ports/workflow-states';
import { WorkflowCatalog } from '../workflow-catalog';

export interface StartRunRequest {
  readonly workflow: string;
  readonly trigger: { readonly kind: string; readonly summary: string; readonly payload?: Json };
  /** `test`: a new test session (CONTRACT 8.4, `chainflow test`). Default `live`. */
  readonly session?: 'live' | 'test';
  /** A repeat of the same delivery (webhook signature, Idempotency-Key, cron tick) starts no second run. */
  readonly dedupeKeys?: readonly string[];
  /**
   * A manual run's Idempotency-Key (API header, `--idempotency-key`): the same key for the same workflow and session
   * starts at most one run (CONTRACT 8.7); a repeat answers the earlier run. Decided in storage with the delivery keys,
   * so two processes racing with one key start one run. Checked here too; driving adapters check it first to name
   * their own field.
   */
  readonly idempotencyKey?: string;
  /** The engine process that will drive the run itself, holding its lease until `leaseUntil`; else any engine claims it. */
  readonly owner?: { readonly id: string; readonly leaseUntil: number };
  /**
   * Journal the run's start now (default). False when an engine of this process drives the run at once: it
   * journals the start with the run's first moves (one write fewer), and the schedule keeps the start until then,
   * so a start is never lost.
   */
  readonly journalStart?: boolean;
  /** The run is this cron tick: recorded together with the move of the workflow's next tick (see RunToEnqueue). */
  readonly cronTick?: { readonly expected: number; readonly next: number };
}

export interface StartedRun {
  readonly runId: string;
  /** False when the delivery was seen before: `runId` is the earlier run's. */
  readonly created: boolean;
  /** The run's first events (journaled, or to be journaled by the engine that drives it); empty when not created. */
  readonly start: readonly JournalEvent[];
}

/**
 * Starts a run of a configured workflow: the run is first recorded in the engine's schedule (with its first
 * events, so that no start is lost if this process dies), then journaled, now or by the engine that drives it.
 * A paused workflow starts no live run (a repeat of one started before still answers that run).
 */
@injectable()
export class StartRun {
  /** Each configured definition pinned once (its hash is a digest of it), not at every start. */
  private readonly pinned = new WeakMap<WorkflowDefinition, PinnedDefinition>();

  constructor(
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(WorkflowStates) private readonly states: WorkflowStates,
    @inject(EngineStore) private readonly store: EngineStore,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(req: StartRunRequest): Promise<StartedRun> {
    const definition = this.catalog.get(req.workflow);
    if (!definition) throw new NotFoundError(`workflow ${req.workflow}`);
    const session = req.session ?? 'live';
    const key = parseIdempotencyKey(req.idempotencyKey, 'idempotency key');
    const dedupeKeys = [...(req.dedupeKeys ?? []), ...(key !== undefined ? [manualRunKey(req.workflow, session, key)] : [])];
    if (session === 'live' && ((await this.states.paused(req.workflow)) ?? definition.paused)) {
      // A repeat of a delivery or key that started a run before the pause starts nothing either way: it is answered
      // with that run (CONTRACT 8.3, 8.7), as before the pause; only a new start is refused.
      const earlier = await this.store.deliveryRun(dedupeKeys);
      if (earlier !== undefined) return { runId: earlier, created: false, start: [] };
      throw new ConflictError('workflow paused');
    }
    const now = this.clock.now();
    const runId = newRunId(now);
    const at = toIso(now);
    const start: JournalEvent[] = [];
    const sessionId = session === 'test' ? `test-${runId}` : undefined;
    if (sessionId) start.push({ type: 'session.started', at, session_id: sessionId, kind: 'test', workflow: req.workflow });
    start.push({
      type: 'run.started', at, run_id: runId, workflow: req.workflow, session, ...(sessionId ? { session_id: sessionId } : {}),
      trigger: { kind: req.trigger.kind, summary: req.trigger.summary, ...(req.trigger.payload !== undefined ? { payload: req.trigger.payload } : {}) },
    });
    const queued = await this.store.enqueue(
      { runId, workflow: req.workflow, start, at: now, ...(dedupeKeys.length ? { dedupeKeys } : {}), ...(req.cronTick ? { cronTick: req.cronTick } : {}), definition: this.pin(definition) },
      req.owner?.id ?? '', req.owner?.leaseUntil ?? 0,
    );
    if (!queued.created) return { ...queued, start: [] };
    if (req.journalStart !== false) await this.journal.append(start);
    return { runId, created: true, start };
  }

  private pin(definition: WorkflowDefinition): PinnedDefinition {
    let pinned = this.pinned.get(definition);
    if (!pinned) this.pinned.set(definition, (pinned = pinDefinition(definition)));
    return pinned;
  }
}
