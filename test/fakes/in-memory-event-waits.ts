import type { EventWait, EventWaits } from '../../src/application/ports/event-waits';
import type { Json } from '../../src/domain/journal/journal-event';

/** The waits of `wait_event` steps in memory, for use-case tests; passes the same contract suite as the knex adapter. */
export class InMemoryEventWaits implements EventWaits {
  private readonly waits = new Map<string, EventWait>();

  async open(wait: Omit<EventWait, 'match'>): Promise<EventWait> {
    if (!this.waits.has(wait.stepRunId)) this.waits.set(wait.stepRunId, structuredClone({ ...wait, match: null }));
    return structuredClone(this.waits.get(wait.stepRunId)!);
  }

  async get(stepRunId: string): Promise<EventWait | undefined> {
    const wait = this.waits.get(stepRunId);
    return wait && structuredClone(wait);
  }

  async pending(): Promise<EventWait[]> {
    return [...this.waits.values()].filter((w) => w.match === null).sort((a, b) => a.stepRunId.localeCompare(b.stepRunId)).map((w) => structuredClone(w));
  }

  async advance(stepRunId: string, expected: bigint, next: bigint, match?: Json): Promise<boolean> {
    const wait = this.waits.get(stepRunId);
    if (!wait || wait.nextBlock !== expected || wait.match !== null) return false;
    this.waits.set(stepRunId, { ...wait, nextBlock: next, match: match === undefined ? null : structuredClone(match) });
    return true;
  }

  async close(stepRunId: string): Promise<void> {
    this.waits.delete(stepRunId);
  }
}
