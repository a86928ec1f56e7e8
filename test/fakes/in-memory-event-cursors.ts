import type { EngineStore } from '../../src/application/ports/engine-store';
import type { EventCursors, LogRun, LogRunToEnqueue, ReorgResponse, ReorgRollback, SendReorg } from '../../src/application/ports/event-cursors';
import type { SendAttempt } from '../../src/domain/send-attempt';
import { receiptBlock } from '../../src/domain/spend/ledger-entry';
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
  /** Log runs a reorg removed (by key), and the responses recorded, journaled or not. */
  private readonly reorged = new Set<string>();
  private readonly responses: Array<ReorgResponse & { journaled: boolean }> = [];
  /** Sends' reopenings recorded by roll backs, by send and removed block hash. */
  private readonly sendReorgs = new Map<string, SendReorg & { journaled: boolean }>();

  /** `sends`: the journal's send projection (the `sends` table of the knex adapter); without it no send is reopened. */
  constructor(private readonly engine: EngineStore, private readonly sends?: { settledSends(): SendAttempt[] }) {}

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

  async rollBack(reorg: ReorgRollback): Promise<{ applied: boolean; responses: ReorgResponse[] }> {
    const kept = this.blocks.get(reorg.network);
    if (kept?.get(reorg.removedTop.number)?.hash !== reorg.removedTop.hash.toLowerCase()) return { applied: false, responses: [] };
    for (const number of kept.keys()) if (number > reorg.ancestor) kept.delete(number);
    for (const h of reorg.canonical) kept.set(h.number, { ...h, hash: h.hash.toLowerCase(), parentHash: h.parentHash.toLowerCase() });
    if (reorg.cursorsStay) return { applied: true, responses: [] };
    for (const cursor of this.cursors.values()) {
      if (cursor.network === reorg.network && cursor.next > reorg.ancestor + 1n) cursor.next = reorg.ancestor + 1n;
    }
    const canonical = new Set(reorg.canonical.map((h) => h.hash.toLowerCase()));
    const removed = (await this.logRunsFrom(reorg.network, reorg.ancestor + 1n)).filter((r) => !canonical.has(r.blockHash) && !this.reorged.has(keyOf(r)));
    const responses = removed.map((r): ReorgResponse => {
      this.reorged.add(keyOf(r));
      return {
        reorgId: reorg.newReorgId(), runId: r.runId, workflow: r.workflow, network: r.network, block: r.blockNumber, removedBlockHash: r.blockHash,
        depth: reorg.depth, at: reorg.at,
      };
    });
    this.responses.push(...responses.map((r) => ({ ...r, journaled: false })));
    const head = reorg.canonical.reduce((top, h) => (h.number > top ? h.number : top), reorg.ancestor);
    for (const send of this.sends?.settledSends() ?? []) {
      const { blockNumber, blockHash } = receiptBlock(send.receipt);
      if (send.network !== reorg.network || blockNumber === null || blockHash === null || blockNumber <= reorg.ancestor || blockNumber > head || canonical.has(blockHash)) continue;
      const key = `${send.sendId}\n${blockHash}`;
      if (this.sendReorgs.has(key)) continue;
      this.sendReorgs.set(key, {
        sendId: send.sendId, runId: send.runId, network: send.network, txHash: send.txHash!, block: blockNumber, removedBlockHash: blockHash, at: reorg.at,
        journaled: false,
      });
    }
    return { applied: true, responses };
  }

  async pendingSendReorgs(network: string): Promise<SendReorg[]> {
    return [...this.sendReorgs.values()].filter((r) => r.network === network && !r.journaled)
      .sort((a, b) => a.at - b.at || (a.block < b.block ? -1 : a.block > b.block ? 1 : a.sendId.localeCompare(b.sendId)))
      .map(({ journaled: _j, ...r }) => r);
  }

  async sendReorgJournaled(sendId: string, removedBlockHash: string): Promise<void> {
    const pending = this.sendReorgs.get(`${sendId}\n${removedBlockHash}`);
    if (pending) pending.journaled = true;
  }

  async pendingResponses(network: string): Promise<ReorgResponse[]> {
    return this.responses.filter((r) => r.network === network && !r.journaled).map(({ journaled: _j, ...r }) => r);
  }

  async responseJournaled(reorgId: string): Promise<void> {
    for (const r of this.responses) if (r.reorgId === reorgId) r.journaled = true;
  }
}

const keyOf = (r: LogRun): string => `${r.workflow}\n${r.blockHash}\n${r.logIndex}`;
