import { DurationHistogram } from '../../src/domain/duration-histogram';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { applyEvents } from '../../src/domain/journal/projector';
import { emptyWorkingSet, type StoredEvent, type WorkingSet } from '../../src/domain/journal/working-set';
import type { Run } from '../../src/domain/run';
import type { AppendOptions, AppendResult, JournalWriter } from '../../src/application/ports/journal-writer';
import type { EngineStore } from '../../src/application/ports/engine-store';
import { LeaseLostError } from '../../src/domain/errors';
import type { ItemText, PageRequest, RunFilter, RunItemText, RunRepository, StepItemsText } from '../../src/application/ports/run-repository';
import { exportSteps, STEP_EVENT_TYPES } from '../../src/application/history/timeline';
import { toApprovalItem, toReplaySessionItem, toRunItem, toSendAttemptItem, toWaitingItem } from '../../src/application/history/items';
import type { StorageHealth, StorageKind } from '../../src/application/ports/storage-health';
import type { PruneCounts, RetentionRepository } from '../../src/application/ports/retention-repository';
import type { ExplorerTxLinks, HistoryRepository, ListFilter, WorkflowOverview } from '../../src/application/ports/history-repository';
import type { Approval } from '../../src/domain/approval';
import type { ReorgResponseRecord } from '../../src/domain/reorg';
import type { SendAttempt } from '../../src/domain/send-attempt';
import { addStats, type ReplaySession, type WorkflowStats } from '../../src/domain/session';
import type { LedgerChange } from '../../src/domain/spend/ledger-entry';
import type { InMemorySpendLedger } from './in-memory-spend';
import type { WorkflowStates } from '../../src/application/ports/workflow-states';

export interface InMemoryJournalOptions {
  /** The spend ledger fed with the ledger's share of landed settles, atomically with each append (as the knex writer does). */
  readonly spend?: InMemorySpendLedger;
  /**
   * The engine's schedule, on the same "database": its leases fence the appends given a LeaseFence and an append's
   * wake and unschedule are its (as the knex writer reads and writes engine_runs in the append's transaction). Without
   * it a fenced append is refused and a wake or unschedule throws: a fake that let them through would hide a lost
   * lease, a lost wake or a run left in the schedule.
   */
  readonly schedule?: Pick<EngineStore, 'fenceOf' | 'wake' | 'remove'>;
}

/**
 * The journal ports in memory, for use-case tests. It folds events with the same domain projector as the
 * knex adapter and passes the same contract tests (test/contract). Appends are atomic: a rejected batch
 * leaves nothing behind.
 */
export class InMemoryJournal implements JournalWriter, RunRepository, StorageHealth, HistoryRepository, RetentionRepository, WorkflowStates {
  private ws: WorkingSet = emptyWorkingSet();
  /** Overview statistics held (the working set carries only what each append adds). */
  private readonly stats = new Map<string, WorkflowStats>();
  private events: StoredEvent[] = [];
  private readonly spend: InMemorySpendLedger | undefined;
  private readonly schedule: Pick<EngineStore, 'fenceOf' | 'wake' | 'remove'> | undefined;

  constructor(options: InMemoryJournalOptions = {}) {
    this.spend = options.spend;
    this.schedule = options.schedule;
  }

  async append(events: readonly JournalEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    return this.appendAll((async function* () { yield events; })(), undefined, options);
  }

  /** Appends one after the other, as transactions on one database would: each works on what the previous left. */
  private queue: Promise<unknown> = Promise.resolve();

  appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void, options: AppendOptions = {}): Promise<AppendResult> {
    const { fence, wake, unschedule } = options;
    const turn = this.queue.then(async () => {
      if (fence) {
        const held = await this.schedule?.fenceOf(fence.runId);
        if (held !== fence.token) throw new LeaseLostError(fence.runId, fence.token, held === undefined);
      }
      if ((wake || unschedule) && !this.schedule) throw new Error('InMemoryJournal: an append with a wake or unschedule needs options.schedule');
      const result = await this.appendNow(batches, onBatch);
      // Nothing can fail between the append and these in memory: they are one step, as in one transaction.
      if (wake) await this.schedule!.wake(wake.runId, wake.at);
      if (unschedule) await this.schedule!.remove(unschedule);
      return result;
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async appendNow(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    const draft = cloneWorkingSet(this.ws);
    const stored: StoredEvent[] = [];
    const ledger: LedgerChange[] = [];
    let applied = 0;
    let duplicates = 0;
    let offset = 0;
    for await (const batch of batches) {
      const changes = applyEvents(draft, batch, offset);
      offset += batch.length;
      stored.push(...changes.events);
      ledger.push(...changes.ledger);
      applied += changes.events.length;
      duplicates += changes.duplicates;
      onBatch?.({ applied, duplicates });
    }
    // The ledger's share first: if it throws, nothing of the append is kept (one transaction in the knex writer).
    this.spend?.recordSettles(ledger);
    // The draft's statistics are what this append adds: added to those held, as the knex writer does in SQL.
    for (const added of draft.workflowStats.values()) this.stats.set(added.workflow, addStats(this.stats.get(added.workflow), added));
    draft.workflowStats.clear();
    this.ws = draft;
    this.events.push(...stored);
    return { applied, duplicates };
  }

  /** A send as the projection holds it (what the budget reservations ask of the `sends` table). */
  sendState(sendId: string): SendAttempt | undefined {
    const send = this.ws.sends.get(sendId);
    return send && structuredClone(send);
  }

  /** The ledger this journal feeds, if any. */
  get spendLedger(): InMemorySpendLedger | undefined {
    return this.spend;
  }

  /** Settled sends (what a reorg's roll back asks of the `sends` table). */
  settledSends(): SendAttempt[] {
    return [...this.ws.sends.values()].filter((s) => s.status === 'settled').map((s) => structuredClone(s));
  }

  /** Sends not yet settled (queued, parked, submitted), of every session. */
  sendsInFlight(): SendAttempt[] {
    return [...this.ws.sends.values()].filter((s) => s.status !== 'settled').map((s) => structuredClone(s));
  }

  async listItems(filter: RunFilter, page: PageRequest): Promise<RunItemText[]> {
    return (await this.list(filter, page)).map((run) => ({
      position: { createdAt: run.createdAt, id: run.runId }, status: run.status, json: JSON.stringify(toRunItem(run)),
    }));
  }

  async list(filter: RunFilter, page: PageRequest): Promise<Run[]> {
    return [...this.ws.runs.values()]
      .filter((r) => matches(r, filter))
      .filter((r) => !page.after || r.createdAt < page.after.createdAt || (r.createdAt === page.after.createdAt && r.runId < page.after.id))
      .sort((a, b) => b.createdAt - a.createdAt || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0))
      .slice(0, page.limit)
      .map((r) => structuredClone(r));
  }

  async get(runId: string): Promise<Run | undefined> {
    const run = this.ws.runs.get(runId);
    return run && structuredClone(run);
  }

  async stream(runId: string): Promise<JournalEvent[]> {
    return this.events.filter((e) => e.stream === runId).map((e) => JSON.parse(JSON.stringify(e.event)) as JournalEvent);
  }

  async streams(runIds: readonly string[], types?: readonly JournalEvent['type'][]): Promise<Map<string, JournalEvent[]>> {
    const out = new Map<string, JournalEvent[]>();
    for (const id of runIds) {
      const events = (await this.stream(id)).filter((e) => !types || types.includes(e.type));
      if (events.length) out.set(id, events);
    }
    return out;
  }

  /** Folded from each run's stream as it stands (the knex adapter keeps them as events are appended). */
  async stepItemsOfRuns(runIds: readonly string[]): Promise<StepItemsText> {
    const streams = await this.streams(runIds, STEP_EVENT_TYPES);
    let count = 0;
    const texts: string[] = [];
    for (const id of runIds) {
      const steps = exportSteps(id, streams.get(id) ?? []);
      if (!steps.length) continue;
      count += steps.length;
      texts.push(JSON.stringify(steps).slice(1, -1));
    }
    return { count, texts };
  }

  async sendItemsOfRuns(runIds: readonly string[], explorer: ExplorerTxLinks): Promise<string[]> {
    return (await this.sendsOfRuns(runIds)).map((send) => JSON.stringify(toSendAttemptItem(send, (n, c, h) => explorer.tx(n, c, h))));
  }

  async sendsOfRuns(runIds: readonly string[]): Promise<SendAttempt[]> {
    const ids = new Set(runIds);
    return [...this.ws.sends.values()].filter((s) => ids.has(s.runId))
      .sort((a, b) => a.createdAt - b.createdAt || (a.sendId < b.sendId ? -1 : 1)).map((s) => structuredClone(s));
  }

  async approvalsOfRuns(runIds: readonly string[]): Promise<Approval[]> {
    const ids = new Set(runIds);
    return [...this.ws.approvals.values()].filter((a) => ids.has(a.runId))
      .sort((a, b) => a.requestedAt - b.requestedAt || (a.approvalId < b.approvalId ? -1 : 1)).map((a) => structuredClone(a));
  }

  /** The fake stands in for the default store. */
  kind(): StorageKind {
    return 'sqlite';
  }

  async ping(): Promise<void> {}

  async paused(workflow: string): Promise<boolean | undefined> {
    return this.ws.workflows.get(workflow)?.paused ?? undefined;
  }

  async blocks(workflow: string): Promise<{ cursorBlock: number | null; headBlock: number | null } | undefined> {
    const state = this.ws.workflows.get(workflow);
    return state ? { cursorBlock: state.cursorBlock, headBlock: state.headBlock } : undefined;
  }

  async sizes(): Promise<Record<string, number>> {
    return { runs: this.ws.runs.size, events: this.events.length, sends: this.ws.sends.size, approvals: this.ws.approvals.size };
  }

  async countBefore(cut: number): Promise<PruneCounts> {
    const old = new Set([...this.ws.runs.values()].filter((r) => r.createdAt < cut).map((r) => r.runId));
    return {
      runs: old.size,
      events: this.events.filter((e) => old.has(e.stream)).length,
      sends: [...this.ws.sends.values()].filter((s) => old.has(s.runId)).length,
      approvals: [...this.ws.approvals.values()].filter((a) => old.has(a.runId)).length,
      reorgs: [...this.ws.reorgs.values()].filter((r) => old.has(r.runId)).length,
    };
  }

  async pruneBefore(cut: number): Promise<PruneCounts> {
    const counts = await this.countBefore(cut);
    const old = new Set([...this.ws.runs.values()].filter((r) => r.createdAt < cut).map((r) => r.runId));
    this.events = this.events.filter((e) => !old.has(e.stream));
    for (const key of [...this.ws.eventKeys]) if (old.has(key.slice(0, key.indexOf('\n')))) this.ws.eventKeys.delete(key);
    const drop = <T>(map: Map<string, T>, runOf: (v: T) => string): void => {
      for (const [k, v] of map) if (old.has(runOf(v))) map.delete(k);
    };
    drop(this.ws.sends, (s) => s.runId);
    drop(this.ws.approvals, (a) => a.runId);
    drop(this.ws.reorgs, (r) => r.runId);
    drop(this.ws.runs, (r) => r.runId);
    return counts;
  }

  async listSendItems(filter: ListFilter, page: PageRequest, explorer: ExplorerTxLinks): Promise<ItemText[]> {
    return (await this.listSends(filter, page)).map((send) => ({
      position: { createdAt: send.createdAt, id: send.sendId }, json: JSON.stringify(toSendAttemptItem(send, (n, c, h) => explorer.tx(n, c, h))),
    }));
  }

  async listWaitingItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]> {
    return (await this.listWaiting(filter, page)).map((run) => ({ position: { createdAt: run.parkedAt ?? 0, id: run.runId }, json: JSON.stringify(toWaitingItem(run)) }));
  }

  async listSends(filter: ListFilter, page: PageRequest): Promise<SendAttempt[]> {
    return keysetPage([...this.ws.sends.values()], filter, page, (s) => s.createdAt, (s) => s.sendId);
  }

  async listApprovals(filter: ListFilter, page: PageRequest): Promise<Approval[]> {
    return keysetPage([...this.ws.approvals.values()], filter, page, (a) => a.requestedAt, (a) => a.approvalId);
  }

  async listApprovalItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]> {
    return (await this.listApprovals(filter, page)).map((a) => ({ position: { createdAt: a.requestedAt, id: a.approvalId }, json: JSON.stringify(toApprovalItem(a)) }));
  }

  async listWaiting(filter: ListFilter, page: PageRequest): Promise<Run[]> {
    const waiting = [...this.ws.runs.values()].filter((r) => r.status === 'waiting');
    return keysetPage(waiting, filter, page, (r) => r.parkedAt ?? 0, (r) => r.runId);
  }

  async listReorgs(filter: ListFilter, page: PageRequest): Promise<ReorgResponseRecord[]> {
    return keysetPage([...this.ws.reorgs.values()], filter, page, (r) => r.createdAt, (r) => r.reorgId);
  }

  async listSessions(filter: ListFilter, page: PageRequest): Promise<ReplaySession[]> {
    return keysetPage([...this.ws.sessions.values()], filter, page, (s) => s.createdAt, (s) => s.sessionId);
  }

  async listSessionItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]> {
    return (await this.listSessions(filter, page)).map((s) => ({ position: { createdAt: s.createdAt, id: s.sessionId }, json: JSON.stringify(toReplaySessionItem(s)) }));
  }

  async listWorkflows(known: readonly string[], limit: number, afterName?: string): Promise<WorkflowOverview[]> {
    const names = [...new Set([...known, ...this.stats.keys(), ...this.ws.workflows.keys()])]
      .filter((n) => afterName === undefined || n > afterName)
      .sort()
      .slice(0, limit);
    const runs = [...this.ws.runs.values()];
    return names.map((workflow) => {
      const stats = this.stats.get(workflow);
      return {
        workflow,
        state: this.ws.workflows.has(workflow) ? structuredClone(this.ws.workflows.get(workflow)!) : undefined,
        stats: stats && { ...stats, durations: DurationHistogram.fromJson(stats.durations.toJson()) },
        runsWaiting: runs.filter((r) => r.workflow === workflow && r.status === 'waiting').length,
      };
    });
  }
}

/** snake_case API field name to the domain's camelCase. */
const camel = (field: string): string => field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function keysetPage<T extends object>(rows: T[], filter: ListFilter, page: PageRequest, time: (row: T) => number, id: (row: T) => string): T[] {
  return rows
    .filter((row) => Object.entries(filter.equals).every(([field, value]) => (row as Record<string, unknown>)[camel(field)] === value))
    .filter((row) => (filter.since === undefined || time(row) >= filter.since) && (filter.until === undefined || time(row) <= filter.until))
    .filter((row) => !page.after || time(row) < page.after.createdAt || (time(row) === page.after.createdAt && id(row) < page.after.id))
    .sort((a, b) => time(b) - time(a) || (id(a) < id(b) ? 1 : id(a) > id(b) ? -1 : 0))
    .slice(0, page.limit)
    .map((row) => structuredClone(row));
}

function matches(r: Run, f: RunFilter): boolean {
  return (f.workflow === undefined || r.workflow === f.workflow)
    && (f.status === undefined || r.status === f.status)
    && (f.trigger === undefined || r.triggerKind === f.trigger)
    && (f.network === undefined || r.network === f.network)
    && (f.contract === undefined || r.contract === f.contract)
    && (f.relayer === undefined || r.relayers.includes(f.relayer))
    && (f.txHash === undefined || r.txHashes.includes(f.txHash))
    && (f.block === undefined || r.block === f.block)
    && (f.runId === undefined || r.runId === f.runId)
    && (f.stepId === undefined || r.stepIds.includes(f.stepId))
    && (f.errorKind === undefined || r.errorKind === f.errorKind)
    && (f.approvalStatus === undefined || r.approvalStatus === f.approvalStatus)
    && (f.session === undefined || r.session === f.session)
    && (f.sessionId === undefined || r.sessionId === f.sessionId)
    && (f.since === undefined || r.createdAt >= f.since)
    && (f.until === undefined || r.createdAt <= f.until);
}

function cloneWorkingSet(ws: WorkingSet): WorkingSet {
  return {
    runs: new Map([...ws.runs].map(([k, v]) => [k, structuredClone(v)])),
    sends: new Map([...ws.sends].map(([k, v]) => [k, structuredClone(v)])),
    approvals: new Map([...ws.approvals].map(([k, v]) => [k, structuredClone(v)])),
    reorgs: new Map([...ws.reorgs].map(([k, v]) => [k, structuredClone(v)])),
    sessions: new Map([...ws.sessions].map(([k, v]) => [k, structuredClone(v)])),
    workflows: new Map([...ws.workflows].map(([k, v]) => [k, structuredClone(v)])),
    workflowStats: new Map([...ws.workflowStats].map(([k, v]) => [k, { ...v, durations: DurationHistogram.fromJson(v.durations.toJson()) }])),
    eventKeys: new Set(ws.eventKeys),
  };
}
