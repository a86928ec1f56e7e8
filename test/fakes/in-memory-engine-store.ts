import { FIRST_FENCE, type ClaimedRun, type EngineStore, type RunToEnqueue } from '../../src/application/ports/engine-store';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import type { JournalEvent } from '../../src/domain/journal/journal-event';

interface Row {
  runId: string;
  workflow: string;
  dueAt: number | null;
  wakeAt: number | null;
  owner: string | null;
  leaseUntil: number | null;
  expired: boolean;
  crashStep: string | null;
  crashCount: number;
  fence: number;
  definitionHash: string | null;
  start: readonly JournalEvent[];
}

/** The engine's schedule in memory, for use-case tests; passes the same contract tests as the knex adapter. */
export class InMemoryEngineStore implements EngineStore {
  private readonly rows = new Map<string, Row>();
  private readonly deliveries = new Map<string, { runId: string; at: number }>();
  private readonly cron = new Map<string, number>();
  private readonly definitions = new Map<string, WorkflowDefinition>();

  async enqueue(run: RunToEnqueue, owner: string, leaseUntil: number): Promise<{ runId: string; created: boolean }> {
    if (run.cronTick) {
      if (this.cron.get(run.workflow) !== run.cronTick.expected) return { runId: '', created: false };
      this.cron.set(run.workflow, run.cronTick.next);
    }
    for (const key of run.dedupeKeys ?? []) {
      const seen = this.deliveries.get(key);
      if (seen !== undefined) return { runId: seen.runId, created: false };
    }
    if (run.definition && !this.definitions.has(run.definition.hash)) this.definitions.set(run.definition.hash, structuredClone(run.definition.definition));
    for (const key of run.dedupeKeys ?? []) this.deliveries.set(key, { runId: run.runId, at: run.at });
    const held = owner !== '';
    this.rows.set(run.runId, {
      runId: run.runId, workflow: run.workflow, dueAt: held ? leaseUntil : 0, wakeAt: null, owner: held ? owner : null,
      leaseUntil: held ? leaseUntil : null, expired: false, crashStep: null, crashCount: 0, fence: held ? FIRST_FENCE : 0, definitionHash: run.definition?.hash ?? null, start: structuredClone(run.start),
    });
    return { runId: run.runId, created: true };
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<ClaimedRun[]> {
    const due = [...this.rows.values()]
      .filter((r) => r.dueAt !== null && r.dueAt <= now && (r.owner === null || (r.leaseUntil ?? 0) < now))
      .sort((a, b) => a.dueAt! - b.dueAt!)
      .slice(0, Math.max(0, limit));
    return due.map((r) => {
      r.expired = r.owner !== null;
      r.owner = owner;
      r.leaseUntil = leaseUntil;
      r.wakeAt = null;
      r.fence++;
      return {
        runId: r.runId, workflow: r.workflow, start: structuredClone(r.start), expired: r.expired, crashStepRunId: r.crashStep, crashCount: r.crashCount,
        fence: r.fence, definitionHash: r.definitionHash,
      };
    });
  }

  async renew(owner: string, runIds: readonly string[], _now: number, leaseUntil: number): Promise<string[]> {
    const held: string[] = [];
    for (const id of runIds) {
      const r = this.rows.get(id);
      if (r && r.owner === owner) {
        r.leaseUntil = leaseUntil;
        held.push(id);
      }
    }
    return held;
  }

  async release(owner: string, runId: string, dueAt: number | null): Promise<void> {
    const r = this.rows.get(runId);
    if (!r || r.owner !== owner) return;
    r.owner = null;
    r.leaseUntil = null;
    r.dueAt = r.wakeAt !== null && (dueAt === null || r.wakeAt < dueAt) ? r.wakeAt : dueAt;
  }

  async remove(runId: string): Promise<void> {
    this.rows.delete(runId);
  }

  async wake(runId: string, at: number): Promise<void> {
    const r = this.rows.get(runId);
    if (!r) return;
    r.wakeAt = at;
    if (r.dueAt === null || r.dueAt > at) r.dueAt = at;
  }

  async noteCrash(runId: string, stepRunId: string | null, count: number): Promise<void> {
    const r = this.rows.get(runId);
    if (!r) return;
    r.crashStep = stepRunId;
    r.crashCount = count;
  }

  async pinnedDefinition(hash: string): Promise<WorkflowDefinition | undefined> {
    const kept = this.definitions.get(hash);
    return kept && structuredClone(kept);
  }

  async fenceOf(runId: string): Promise<number | undefined> {
    return this.rows.get(runId)?.fence;
  }

  async nextLeaseEnd(owner: string, _now: number): Promise<number | undefined> {
    let end: number | undefined;
    for (const r of this.rows.values()) {
      if (r.owner !== null && r.owner !== owner && r.leaseUntil !== null && (end === undefined || r.leaseUntil < end)) end = r.leaseUntil;
    }
    return end;
  }

  async heldCounts(now: number): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const r of this.rows.values()) {
      if (r.owner !== null && (r.leaseUntil ?? 0) >= now) counts.set(r.workflow, (counts.get(r.workflow) ?? 0) + 1);
    }
    return counts;
  }

  async deliveryRun(dedupeKeys: readonly string[]): Promise<string | undefined> {
    for (const key of dedupeKeys) {
      const seen = this.deliveries.get(key);
      if (seen) return seen.runId;
    }
    return undefined;
  }

  async forgetDeliveries(before: number): Promise<number> {
    let forgotten = 0;
    for (const [key, d] of this.deliveries) {
      if (d.at < before && this.deliveries.delete(key)) forgotten++;
    }
    return forgotten;
  }

  async cronNext(workflow: string): Promise<number | undefined> {
    return this.cron.get(workflow);
  }

  async advanceCron(workflow: string, expected: number | undefined, next: number): Promise<boolean> {
    if (this.cron.get(workflow) !== expected) return false;
    this.cron.set(workflow, next);
    return true;
  }

  /** Test view: the scheduled run ids. */
  scheduled(): string[] {
    return [...this.rows.keys()];
  }
}
