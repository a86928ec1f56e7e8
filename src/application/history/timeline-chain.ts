import type { ExplorerLinks } from '../../domain/explorer';
import type { RunStarted } from '../../domain/journal/journal-event';
import type { ReorgResponseRecord } from '../../domain/reorg';
import { toIso } from '../../domain/time';

/**
 * The log an event run started from (CONTRACT 8.6), as its timeline's trigger shows it: where it is on the chain and
 * links to the network's explorer (null where the network has none, as for a send's `explorer_url`).
 */
export interface TriggerLog {
  network: string | null;
  contract: string;
  block_number: number;
  block_hash: string;
  /** The block's time, RFC 3339 UTC; null where the journal kept none. */
  block_time: string | null;
  tx_hash: string | null;
  log_index: number;
  tx_url: string | null;
  block_url: string | null;
  contract_url: string | null;
}

/** A reorg response naming the run: the run's link to it, with both blocks linked (see ReorgResponseItem). */
export interface ReorgLink {
  reorg_id: string;
  created_at: string;
  network: string;
  block: number;
  removed_block_hash: string | null;
  /** The block now at that height (the explorer resolves the number on today's chain). */
  block_url: string | null;
  /** The removed block, by its hash: explorers keep orphaned blocks under their hash. */
  removed_block_url: string | null;
}

/** The log of a `run.started` whose trigger kept one (an event run), else null. */
export function triggerLog(e: RunStarted, explorer: ExplorerLinks): TriggerLog | null {
  const { block, log } = e.trigger;
  if (!block || !log) return null;
  const network = e.network ?? null;
  const txHash = e.trigger.tx_hash ?? null;
  return {
    network, contract: log.address, block_number: block.number, block_hash: block.hash,
    block_time: block.timestamp === undefined ? null : toIso(block.timestamp * 1000), tx_hash: txHash, log_index: log.log_index,
    tx_url: network && txHash ? explorer.tx(network, null, txHash) : null,
    block_url: network ? explorer.block(network, null, block.hash) : null,
    contract_url: network ? explorer.address(network, null, log.address) : null,
  };
}

/** Links to a reorg's two blocks: the one now at its height (by number) and the removed one (by hash, where known). */
export function reorgBlockUrls(r: Pick<ReorgResponseRecord, 'network' | 'block' | 'removedBlockHash'>, explorer: ExplorerLinks): { block_url: string | null; removed_block_url: string | null } {
  return {
    block_url: explorer.block(r.network, null, r.block),
    removed_block_url: r.removedBlockHash ? explorer.block(r.network, null, r.removedBlockHash) : null,
  };
}

export function reorgLink(r: ReorgResponseRecord, explorer: ExplorerLinks): ReorgLink {
  return {
    reorg_id: r.reorgId, created_at: toIso(r.createdAt) as string, network: r.network, block: r.block,
    removed_block_hash: r.removedBlockHash, ...reorgBlockUrls(r, explorer),
  };
}
