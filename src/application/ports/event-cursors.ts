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
}
export const EventCursors = Symbol('EventCursors');
