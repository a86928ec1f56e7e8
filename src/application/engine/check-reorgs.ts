import { randomBytes } from 'node:crypto';
import type { BlockHeader } from '../../domain/chain/chain-log';
import type { ChainTarget } from '../ports/chain';
import type { ChainLogs } from '../ports/chain-logs';
import type { EventCursors, ReorgResponse } from '../ports/event-cursors';
import type { EngineMetrics } from '../ports/engine-metrics';
import type { Logger } from '../ports/logger';

/** What one check found: nothing, a reorg rolled back (by this process), or one too deep to roll back. */
export type ReorgCheck =
  | { readonly kind: 'none' }
  | { readonly kind: 'rolled_back'; readonly ancestor: bigint; readonly depth: number; readonly responses: readonly ReorgResponse[] }
  | { readonly kind: 'deep'; readonly depth: number };

/** A reorg response's id: `reorg-` + the time in base 36 (sorts by time) + random hex (the id pattern of section 5). */
export function newReorgId(nowMs: number): string {
  return `reorg-${Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0')}-${randomBytes(5).toString('hex')}`;
}

/**
 * The reorg check (CONTRACT 8.6), run by the log poller once per network and poll, on the head it read and before
 * it reads new logs: so no cursor moves over a range of a removed fork before the check moved it back.
 *
 * As Ponder's realtime sync reconciles a new block: a head whose parent is the last kept block extends the chain.
 * Otherwise the check walks back by parent hash from the new chain's block at the last kept height (or from the head,
 * when the chain got shorter) until a block whose hash is the one kept at its number: the common ancestor. The kept
 * blocks above it were removed. The walk reads at most `finality_depth` headers; a reorg that removed more blocks
 * than that (or whose fork lies below every kept block) is deep: it is not rolled back, it is logged as an error,
 * and the kept blocks are replaced by the head so that the same reorg is not reported at each poll.
 */
export class CheckReorgs {
  constructor(
    private readonly chain: ChainLogs,
    private readonly cursors: EventCursors,
    private readonly metrics: EngineMetrics,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  async check(target: ChainTarget, finalityDepth: number, top: BlockHeader): Promise<ReorgCheck> {
    const kept = await this.cursors.keptBlocks(target.network, 0n);
    const latest = kept[kept.length - 1];
    if (!latest) return { kind: 'none' };
    const byNumber = new Map(kept.map((h) => [h.number, h]));
    if (byNumber.get(top.number)?.hash === top.hash.toLowerCase() && latest.number === top.number) return { kind: 'none' };
    if (top.number === latest.number + 1n && top.parentHash.toLowerCase() === latest.hash) return { kind: 'none' };

    // The new chain's blocks from the walk's start down to the ancestor (kept in place of the removed ones).
    const walked: BlockHeader[] = [];
    let cur: BlockHeader | null = top.number <= latest.number ? top : await this.chain.headerByNumber(target, latest.number);
    const lowest = kept[0]!.number;
    let ancestor: BlockHeader | undefined;
    while (cur) {
      const mine = byNumber.get(cur.number);
      if (mine && mine.hash === cur.hash.toLowerCase()) {
        ancestor = cur;
        break;
      }
      walked.push(cur);
      if (cur.number <= lowest || walked.length > finalityDepth) break;
      cur = await this.chain.headerByHash(target, cur.parentHash);
    }
    if (!cur) throw new Error(`${target.network}: a block of the new chain is no longer known while walking back a reorg (the chain moved again); checked again at the next poll`);
    if (ancestor && ancestor.number === latest.number) return { kind: 'none' };
    const removedTop = latest;
    if (!ancestor) {
      const depth = Number(latest.number - cur.number) + 1;
      const { applied } = await this.cursors.rollBack({
        // No ancestor in the window: forget every kept block and keep the head; no cursor moves past blocks read.
        network: target.network, ancestor: lowest - 1n, removedTop, canonical: [top], depth, at: this.now(), newReorgId: () => '',
        cursorsStay: true,
      });
      if (!applied) return { kind: 'none' };
      this.metrics.reorgSeen(target.network, true);
      this.logger.error('reorg deeper than finality_depth: not rolled back', {
        network: target.network, depth, finality_depth: finalityDepth, head_block: Number(top.number), kept_from_block: Number(lowest),
        removed_head_hash: latest.hash,
      });
      return { kind: 'deep', depth };
    }
    const depth = Number(latest.number - ancestor.number);
    const at = this.now();
    const canonical = top.number > (walked[0]?.number ?? ancestor.number) ? [...walked, ...(await this.between(target, walked[0]?.number ?? ancestor.number, top)), top] : walked;
    const { applied, responses } = await this.cursors.rollBack({
      network: target.network, ancestor: ancestor.number, removedTop, canonical, depth, at, newReorgId: () => newReorgId(at),
    });
    // Another engine process rolled this reorg back first: it journals the responses and counts it.
    if (!applied) return { kind: 'none' };
    this.metrics.reorgSeen(target.network, false);
    this.logger.warn('reorg rolled back', {
      network: target.network, depth, ancestor_block: Number(ancestor.number), removed_blocks: kept.filter((h) => h.number > ancestor!.number).map((h) => Number(h.number)),
      head_block: Number(top.number), affected_runs: responses.length,
    });
    return { kind: 'rolled_back', ancestor: ancestor.number, depth, responses };
  }

  /**
   * The new chain's blocks above `from` and below the head, by parent hash from the head (usually none or one): with
   * them the roll back knows the canonical hash at every height up to the head, so that a send whose receipt is in a
   * block the last poll never saw is reopened only when that block was removed (CONTRACT 8.6, sends under a reorg).
   */
  private async between(target: ChainTarget, from: bigint, top: BlockHeader): Promise<BlockHeader[]> {
    const out: BlockHeader[] = [];
    for (let cur = top; cur.number > from + 1n;) {
      const parent = await this.chain.headerByHash(target, cur.parentHash);
      if (!parent) throw new Error(`${target.network}: a block of the new chain is no longer known while walking back a reorg (the chain moved again); checked again at the next poll`);
      out.unshift(parent);
      cur = parent;
    }
    return out;
  }
}
