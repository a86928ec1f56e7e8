import type { BlockHeader } from '../../domain/chain/chain-log';
import type { RunToEnqueue } from './engine-store';

/** A run a log starts: the run to enqueue, and the log's key and place (CONTRACT 8.6: workflow, block hash, log index). */
export interface LogRunToEnqueue {
  readonly run: RunToEnqueue;
  readonly network: string;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly logIndex: number;
  readonly txHash: string;
}

/** A run a log started, as stored: for the reorg check (which runs had their log in a removed block). */
export interface LogRun {
  readonly workflow: string;
  readonly runId: string;
  readonly network: string;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly logIndex: number;
}

/** A run whose log a reorg removed, and the response it is owed (CONTRACT 8.6 `reorg.response`). */
export interface ReorgResponse {
  readonly reorgId: string;
  readonly runId: string;
  readonly workflow: string;
  readonly network: string;
  readonly block: bigint;
  readonly removedBlockHash: string;
  /** Blocks the reorg removed. */
  readonly depth: number;
  /** When the reorg was rolled back (epoch ms). */
  readonly at: number;
}

/**
 * A settled send whose receipt's block a reorg removed (CONTRACT 8.6): it is owed its reopening in the journal
 * (`send.submitted` with `reorged`), after which the send watch awaits its transaction again.
 */
export interface SendReorg {
  readonly sendId: string;
  readonly runId: string;
  readonly network: string;
  /** The hash that had landed (the send's settled hash). */
  readonly txHash: string;
  readonly block: bigint;
  readonly removedBlockHash: string;
  /** When the reorg was rolled back (epoch ms): the reopening's time, the same each time it is made. */
  readonly at: number;
}

/** A reorg to roll back: the network's kept blocks above `ancestor` were removed. */
export interface ReorgRollback {
  readonly network: string;
  /** The highest kept block still canonical: cursors past it move back to the block after it. */
  readonly ancestor: bigint;
  /** The highest kept header the reorg removed, as kept: the compare-and-set that lets one process roll it back. */
  readonly removedTop: BlockHeader;
  /** Canonical headers to keep in place of the removed ones (the new head, at least). */
  readonly canonical: readonly BlockHeader[];
  readonly depth: number;
  readonly at: number;
  /** A deep reorg (CONTRACT 8.6: an alarm, not a rollback): only the kept blocks are replaced. */
  readonly cursorsStay?: boolean;
  /** Names each response (one per affected run). */
  readonly newReorgId: () => string;
}

/**
 * Where each event workflow reads next, the runs its logs started, and the recent block hashes of each network
 * (CONTRACT 8.6). The cursor moves only together with the runs of the logs it passes, in one transaction, and by
 * compare-and-set: a log starts exactly one run across crashes, restarts and several engine processes.
 */
export interface EventCursors {
  /** The next block the workflow reads; undefined when it has no cursor yet. */
  cursor(workflow: string): Promise<bigint | undefined>;
  /** Gives a workflow without a cursor this one; answers the cursor stored (another process's, if it came first). */
  startCursor(workflow: string, network: string, next: bigint): Promise<bigint>;
  /**
   * In one transaction: moves the cursor from `expected` to `next` and enqueues the runs of logs not seen before
   * (by workflow, block hash, log index). When the cursor is not at `expected` (another process moved it) nothing
   * is written and `advanced` is false. `started`: the ids of the runs enqueued.
   */
  advance(workflow: string, expected: bigint, next: bigint, runs: readonly LogRunToEnqueue[]): Promise<{ advanced: boolean; started: string[] }>;
  /** The runs logs started in blocks `fromBlock` and above of a network, in chain order. */
  logRunsFrom(network: string, fromBlock: bigint): Promise<LogRun[]>;
  /**
   * Keeps these headers as the network's canonical blocks (a header at a kept number replaces it) and forgets those
   * below `keepFrom`: the window a reorg check walks back through.
   */
  keepBlocks(network: string, headers: readonly BlockHeader[], keepFrom: bigint): Promise<void>;
  /** The kept headers of a network, from `fromBlock` up, in order. */
  keptBlocks(network: string, fromBlock: bigint): Promise<BlockHeader[]>;
  /**
   * In one transaction: forgets the kept blocks above the ancestor and keeps the canonical ones, moves the cursors
   * of the network's workflows that passed the ancestor back to the block after it, and records a pending response
   * for each run whose log was in a removed block (marked, so a log run is answered once), and a pending reopening for
   * each settled send whose receipt was in a removed block (once per send and removed block). When the kept header at
   * `removedTop` is no longer the one given (another process rolled this reorg back), nothing is written and
   * `applied` is false. `responses`: those recorded.
   */
  rollBack(reorg: ReorgRollback): Promise<{ applied: boolean; responses: ReorgResponse[] }>;
  /** The responses recorded and not yet journaled, oldest first. */
  pendingResponses(network: string): Promise<ReorgResponse[]>;
  /** The response was journaled: it is no longer pending. */
  responseJournaled(reorgId: string): Promise<void>;
  /** The sends' reopenings recorded by roll backs and not yet journaled, oldest first. */
  pendingSendReorgs(network: string): Promise<SendReorg[]>;
  /** The send's reopening was journaled: it is no longer pending. */
  sendReorgJournaled(sendId: string, removedBlockHash: string): Promise<void>;
}
export const EventCursors = Symbol('EventCursors');
