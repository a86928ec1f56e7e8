import type { EngineStore } from '../../src/application/ports/engine-store';
import type { EventCursors, LogRun, LogRunToEnqueue } from '../../src/application/ports/event-cursors';
import type { BlockHeader } from '../../src/domain/chain/chain-log';

/**
 * Event cursors in memory, for use-case tests; passes the same contract suite as the knex adapter. Runs of new logs
 * go into the given engine store (as the knex adapter puts them into the schedule's table), in the same step as
 * the cursor's move: nothing between them can fail here.
 */
export class InMemoryEventCursors implements EventCursors {
  private readonly cursors = new Map<string, { network: string; next: bigint }>();
  private readonly logRuns = new Map<string, LogRun>();
  private readonly blocks = new Map<string, Map<bigint, BlockHeader>>();

  constructor(private readonly engine: EngineStore) {}

  async cursor(workflow: string): Promise<bigint | undefined> {
    return this.cursors.get(workflow)?.next;
  }

  async startCursor(workflow: string, network: string, next: bigint): Promise<bigint> {
    if (!this.cursors.has(workflow)) this.cursors.set(workflow, { network, next });
    return this.cursors.get(workflow)!.next;
  }

  async advance(workflow: string, expected: bigint, next: bigint, runs: readonly LogRunToEnqueue[]): Promise<{ advanced: boolean; started: string[] }> {
    const cursor = this.cursors.get(workflow);
    if (!cursor || cursor.next !== expected) return { advanced: false, started: [] };
    cursor.next = next;
    const started: string[] = [];
    for (const r of runs) {
      const key = `${workflow}\n${r.blockHash.toLowerCase()}\n${r.logIndex}`;
      if (this.logRuns.has(key)) continue;
      this.logRuns.set(key, {
        workflow, runId: r.run.runId, network: r.network, blockNumber: r.blockNumber, blockHash: r.blockHash.toLowerCase(), logIndex: r.logIndex,
      });
      await this.engine.enqueue(r.run, '', 0);
      started.push(r.run.runId);
    }
    return { advanced: true, started };
  }

  async logRunsFrom(network: string, fromBlock: bigint): Promise<LogRun[]> {
    return [...this.logRuns.values()]
      .filter((r) => r.network === network && r.blockNumber >= fromBlock)
      .sort((a, b) => (a.blockNumber !== b.blockNumber ? (a.blockNumber < b.blockNumber ? -1 : 1) : a.logIndex - b.logIndex || a.workflow.localeCompare(b.workflow)))
      .map((r) => ({ ...r }));
  }

  async keepBlocks(network: string, headers: readonly BlockHeader[], keepFrom: bigint): Promise<void> {
    const kept = this.blocks.get(network) ?? new Map<bigint, BlockHeader>();
    this.blocks.set(network, kept);
    for (const h of headers) kept.set(h.number, { ...h, hash: h.hash.toLowerCase(), parentHash: h.parentHash.toLowerCase() });
    for (const number of kept.keys()) if (number < keepFrom) kept.delete(number);
  }

  async keptBlocks(network: string, fromBlock: bigint): Promise<BlockHeader[]> {
    return [...(this.blocks.get(network)?.values() ?? [])].filter((h) => h.number >= fromBlock).sort((a, b) => (a.number < b.number ? -1 : 1)).map((h) => ({ ...h }));
  }
}
