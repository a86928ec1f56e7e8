import type { BlockHeader, ChainLog } from '../../domain/chain/chain-log';
import type { RunStarted } from '../../domain/journal/journal-event';
import type { ChainTarget } from '../ports/chain';
import type { ChainLogs } from '../ports/chain-logs';

/** Block headers read at once for the logs of one range. */
const HEADER_READS = 16;

/**
 * The header of each block holding logs, by hash (the log's own block, even if the chain moved meanwhile), read
 * HEADER_READS at a time: a backfill's thousands of blocks would otherwise wait on one round trip each.
 */
export async function headersOf(chain: ChainLogs, target: ChainTarget, logs: readonly ChainLog[]): Promise<Map<string, BlockHeader>> {
  const hashes = [...new Set(logs.map((l) => l.blockHash))];
  const headers = new Map<string, BlockHeader>();
  for (let i = 0; i < hashes.length; i += HEADER_READS) {
    await Promise.all(hashes.slice(i, i + HEADER_READS).map(async (hash) => {
      const header = await chain.headerByHash(target, hash);
      // Gone already: a reorg removed it between the two reads. The range is read again.
      if (!header) throw new Error(`${target.network}: block ${hash} of a log is no longer known (reorg?)`);
      headers.set(hash, header);
    }));
  }
  return headers;
}

/** The event's name in its signature (`Transfer` of `Transfer(address indexed from, …)`), for trigger summaries. */
export function eventNameOf(signature: string): string {
  return signature.replace(/^\s*event\s+/, '').split('(')[0]!.trim();
}

/** Where a run a log starts belongs: a live run, or a run of a replay session (with the live run of the same log). */
export type LogRunSession =
  | { readonly session: 'live' }
  | { readonly session: 'replay'; readonly sessionId: string; readonly replayOf?: string };

/**
 * The `run.started` of a run a log starts (CONTRACT 8.6): the decoded log as the payload; beside it the block, the
 * transaction and the log's place; the run item's network, contract and block from the log.
 */
export function logRunStarted(
  runId: string, at: string, workflow: string, network: string, eventName: string, log: ChainLog, header: BlockHeader, session: LogRunSession,
): RunStarted {
  const number = Number(log.blockNumber);
  return {
    type: 'run.started', at, run_id: runId, workflow, session: session.session,
    ...(session.session === 'replay' ? { session_id: session.sessionId } : {}),
    trigger: {
      kind: 'event', summary: `${eventName} at block ${number}`, payload: { ...log.args },
      block: { number, hash: log.blockHash, timestamp: header.timestamp }, tx_hash: log.txHash, log: { address: log.address, log_index: log.logIndex },
    },
    network, contract: log.address, block: number,
    ...(session.session === 'replay' && session.replayOf !== undefined ? { replay_of: session.replayOf } : {}),
  };
}
