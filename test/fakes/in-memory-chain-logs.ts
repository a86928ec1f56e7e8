import { createHash } from 'node:crypto';
import { ChainUnavailableError, type ChainTarget } from '../../src/application/ports/chain';
import { LogRangeTooLargeError, type ChainLogs, type LogQuery } from '../../src/application/ports/chain-logs';
import { parseEventSignature } from '../../src/adapters/chain/abi-signature';
import { chainOrder, type BlockHeader, type ChainLog } from '../../src/domain/chain/chain-log';
import type { Json } from '../../src/domain/journal/journal-event';

interface Block extends BlockHeader {
  readonly logs: ReadonlyArray<ChainLog & { readonly event: string }>;
}

const hash = (text: string): string => `0x${createHash('sha256').update(text).digest('hex')}`;

/**
 * A chain of blocks and their logs in memory, for use-case tests; passes the same contract suite as Web3Logs on
 * anvil. Like anvil it mines a block per emitted log (`emit`), and `mine` adds empty blocks. Its faults: ranges wider
 * than N blocks refused, and the next reads failing as if no provider answered. `reorg` replaces the last blocks.
 */
export class InMemoryChainLogs implements ChainLogs {
  private blocks: Block[] = [];
  private refuseOver: number | undefined;
  private failing = 0;
  private forks = 0;
  /** eth_getLogs calls asked of this fake (refused and failed ones included), with their ranges. */
  readonly queries: Array<{ fromBlock: bigint; toBlock: bigint }> = [];

  constructor(private readonly chainTime = 1_700_000_000) {
    this.push([]);
  }

  /** The head's number. */
  head(): bigint {
    return BigInt(this.blocks.length - 1);
  }

  /** Adds `count` empty blocks. */
  mine(count = 1): void {
    for (let i = 0; i < count; i++) this.push([]);
  }

  /**
   * Mines one block holding logs of `event` emitted by `address` with these decoded arguments (as the adapter
   * decodes them); returns the logs as `logs` will answer them.
   */
  emit(address: string, event: string, ...argsList: Array<Record<string, Json>>): ChainLog[] {
    const number = BigInt(this.blocks.length);
    const blockHash = this.blockHash(number);
    const logs = argsList.map((args, logIndex) => ({
      address: address.toLowerCase(), blockNumber: number, blockHash, txHash: hash(`tx ${blockHash} ${logIndex}`), logIndex, args: { ...args },
      event: parseEventSignature(event).canonical,
    }));
    this.push(logs);
    return logs.map(({ event: _event, ...log }) => log);
  }

  /** Drops the last `depth` blocks and mines `depth + extra` new empty ones in their place (other hashes). */
  reorg(depth: number, extra = 0): void {
    this.forks++;
    this.blocks = this.blocks.slice(0, this.blocks.length - depth);
    this.mine(depth + extra);
  }

  /** From now on, eth_getLogs over more than `blocks` blocks is refused (undefined: none is). */
  refuseRangesOver(blocks: number | undefined): void {
    this.refuseOver = blocks;
  }

  /** The next `count` reads fail as if no provider answered. */
  failNext(count: number): void {
    this.failing = count;
  }

  async logs(target: ChainTarget, query: LogQuery): Promise<ChainLog[]> {
    if (query.fromBlock < 0n || query.toBlock < query.fromBlock) throw new Error(`logs: ${query.fromBlock}..${query.toBlock} is not a block range`);
    this.queries.push({ fromBlock: query.fromBlock, toBlock: query.toBlock });
    this.fault(target);
    if (this.refuseOver !== undefined && query.toBlock - query.fromBlock + 1n > BigInt(this.refuseOver)) {
      throw new LogRangeTooLargeError(target.network, query.fromBlock, query.toBlock, `eth_getLogs is limited to a ${this.refuseOver} range`);
    }
    const addresses = new Set(query.addresses.map((a) => a.toLowerCase()));
    const event = parseEventSignature(query.event).canonical;
    return this.blocks
      .filter((b) => b.number >= query.fromBlock && b.number <= query.toBlock)
      .flatMap((b) => b.logs.filter((l) => addresses.has(l.address) && l.event === event).map(({ event: _event, ...log }) => structuredClone(log)))
      .sort(chainOrder);
  }

  async headerByNumber(target: ChainTarget, number: bigint | 'latest'): Promise<BlockHeader | null> {
    this.fault(target);
    const block = this.blocks[number === 'latest' ? this.blocks.length - 1 : Number(number)];
    return block ? header(block) : null;
  }

  async headerByHash(target: ChainTarget, blockHash: string): Promise<BlockHeader | null> {
    this.fault(target);
    const block = this.blocks.find((b) => b.hash === blockHash.toLowerCase());
    return block ? header(block) : null;
  }

  private fault(target: ChainTarget): void {
    if (this.failing <= 0) return;
    this.failing--;
    throw new ChainUnavailableError(target.network, 'no provider answered (provider 1: HTTP 503)');
  }

  private blockHash(number: bigint): string {
    return hash(`block ${number} fork ${this.forks}`);
  }

  private push(logs: Block['logs']): void {
    const number = BigInt(this.blocks.length);
    const parent = this.blocks[this.blocks.length - 1];
    this.blocks.push({
      number, hash: this.blockHash(number), parentHash: parent?.hash ?? `0x${'0'.repeat(64)}`, timestamp: this.chainTime + Number(number), logs,
    });
  }
}

function header(block: Block): BlockHeader {
  return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp };
}
