import type { EventLag, InFlightCount, OperationsGauges, WaitingCount } from '../../src/application/ports/operations-gauges';
import type { InMemoryJournal } from './in-memory-journal';

/** The gauges over an in-memory journal's projection; passes test/contract/operations-gauges.contract.ts. */
export class InMemoryOperationsGauges implements OperationsGauges {
  constructor(private readonly journal: InMemoryJournal) {}

  async runsWaiting(): Promise<WaitingCount[]> {
    const counts = new Map<string, WaitingCount>();
    for (const run of await this.journal.listWaiting({ equals: {} }, { limit: Number.MAX_SAFE_INTEGER })) {
      const waitKind = run.waitKind ?? 'unknown';
      const key = `${run.workflow}\u0000${waitKind}`;
      counts.set(key, { workflow: run.workflow, waitKind, runs: (counts.get(key)?.runs ?? 0) + 1 });
    }
    return [...counts.values()];
  }

  async sendsInFlight(): Promise<InFlightCount[]> {
    const counts = new Map<string, number>();
    for (const send of this.journal.sendsInFlight()) if (send.session === 'live') counts.set(send.relayer, (counts.get(send.relayer) ?? 0) + 1);
    return [...counts].map(([relayer, sends]) => ({ relayer, sends }));
  }

  async eventLag(): Promise<EventLag[]> {
    return (await this.journal.listWorkflows([], Number.MAX_SAFE_INTEGER)).flatMap(({ workflow, state }) =>
      (state && state.cursorBlock !== null && state.headBlock !== null ? [{ workflow, lagBlocks: Math.max(0, state.headBlock - state.cursorBlock) }] : []));
  }
}
