import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { applyEvents } from '../../src/domain/journal/projector';
import { emptyWorkingSet, type StoredEvent, type WorkingSet } from '../../src/domain/journal/working-set';
import type { Run } from '../../src/domain/run';
import type { AppendResult, JournalWriter } from '../../src/application/ports/journal-writer';
import type { PageRequest, RunFilter, RunRepository } from '../../src/application/ports/run-repository';
import type { StorageHealth } from '../../src/application/ports/storage-health';

/**
 * The journal ports in memory, for use-case tests. It folds events with the same domain projector as the
 * knex adapter and passes the same contract tests (test/contract). Appends are atomic: a rejected batch
 * leaves nothing behind.
 */
export class InMemoryJournal implements JournalWriter, RunRepository, StorageHealth {
  private ws: WorkingSet = emptyWorkingSet();
  private events: StoredEvent[] = [];

  async append(events: readonly JournalEvent[]): Promise<AppendResult> {
    return this.appendAll((async function* () { yield events; })());
  }

  async appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    const draft = cloneWorkingSet(this.ws);
    const stored: StoredEvent[] = [];
    let applied = 0;
    let duplicates = 0;
    let offset = 0;
    for await (const batch of batches) {
      const changes = applyEvents(draft, batch, offset);
      offset += batch.length;
      stored.push(...changes.events);
      applied += changes.events.length;
      duplicates += changes.duplicates;
      onBatch?.({ applied, duplicates });
    }
    this.ws = draft;
    this.events.push(...stored);
    return { applied, duplicates };
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

  async ping(): Promise<void> {}
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
    eventKeys: new Set(ws.eventKeys),
  };
}
