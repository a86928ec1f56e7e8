import { inject, injectable, optional } from 'inversify';
import type { ChainTarget } from '../../application/ports/chain';
import { LogRangeTooLargeError, type ChainLogs, type LogQuery } from '../../application/ports/chain-logs';
import { chainOrder, type BlockHeader, type ChainLog } from '../../domain/chain/chain-log';
import type { Json } from '../../domain/journal/journal-event';
import { parseEventSignature, type EventParam, type EventSignature } from './abi-signature';
import { ProviderChainIds } from './chain-ids';
import { classifyRpcError } from './classify';
import { ProviderFailure, quantity, RpcError } from './json-rpc';
import { overProviders, type RetryPolicy } from './providers';
import { retryPolicyOf, Web3ChainOptions } from './web3-chain';
import { web3 } from './web3-module';

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** An event's signature parsed once, with its topic 0. */
interface KnownEvent {
  readonly signature: EventSignature;
  readonly topic0: string;
}

/**
 * Logs and block headers over JSON-RPC (eth_getLogs, eth_getBlockBy*), through the same provider failover and
 * retries as Web3Chain (providers.ts). A range refusal (classify.ts `range_too_large`) is no provider's trouble:
 * it is thrown at once as LogRangeTooLargeError, for the caller to ask for fewer blocks. Logs are decoded here, by
 * the event's signature, so that web3.js stays inside this folder.
 */
@injectable()
export class Web3Logs implements ChainLogs {
  private readonly policy: RetryPolicy;
  private readonly chainIds: ProviderChainIds;
  private readonly events = new Map<string, KnownEvent>();

  constructor(@inject(Web3ChainOptions) @optional() options: Web3ChainOptions = {}) {
    this.policy = retryPolicyOf(options);
    this.chainIds = options.chainIds ?? new ProviderChainIds();
  }

  async logs(target: ChainTarget, query: LogQuery): Promise<ChainLog[]> {
    if (query.fromBlock < 0n || query.toBlock < query.fromBlock) throw new Error(`logs: ${query.fromBlock}..${query.toBlock} is not a block range`);
    if (query.addresses.length === 0 || query.addresses.some((a) => !ADDRESS.test(a))) throw new Error('logs: addresses must be 20-byte 0x-hex, at least one');
    const event = this.event(query.event);
    const filter = {
      fromBlock: hex(query.fromBlock), toBlock: hex(query.toBlock), address: query.addresses.map((a) => a.toLowerCase()), topics: [event.topic0],
    };
    const raw = await overProviders(target, this.chainIds, this.policy, Number.POSITIVE_INFINITY, async (p) => {
      try {
        return await p.call('eth_getLogs', [filter], (result) => {
          if (!Array.isArray(result)) throw new ProviderFailure('malformed logs');
          return result as unknown[];
        }, (error) => classifyRpcError(error) === 'range_too_large');
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        if (classifyRpcError(error) === 'range_too_large') throw new LogRangeTooLargeError(target.network, query.fromBlock, query.toBlock, error.detail);
        // A node that refuses the filter itself says nothing a smaller range would change: this provider's trouble.
        throw new ProviderFailure(`eth_getLogs refused${error.code === undefined ? '' : ` (${error.code})`}`);
      }
    });
    // A provider may answer logs of a removed block (`removed: true`) or, against its filter, of other events.
    const logs = raw.flatMap((item) => {
      const log = item as RawLog;
      if (log?.removed === true || !Array.isArray(log?.topics) || String(log.topics[0]).toLowerCase() !== event.topic0) return [];
      return [toLog(log, event.signature)];
    });
    return logs.sort(chainOrder);
  }

  async headerByNumber(target: ChainTarget, number: bigint | 'latest'): Promise<BlockHeader | null> {
    if (number !== 'latest' && number < 0n) throw new Error('headerByNumber: the block number must be >= 0');
    return this.header(target, 'eth_getBlockByNumber', number === 'latest' ? 'latest' : hex(number));
  }

  async headerByHash(target: ChainTarget, hash: string): Promise<BlockHeader | null> {
    if (!HASH.test(hash)) throw new Error('headerByHash: the hash is not a 32-byte 0x-hex string');
    return this.header(target, 'eth_getBlockByHash', hash);
  }

  private header(target: ChainTarget, method: string, block: string): Promise<BlockHeader | null> {
    return overProviders(target, this.chainIds, this.policy, Number.POSITIVE_INFINITY, (p) => p.read(method, [block, false], toHeader));
  }

  private event(text: string): KnownEvent {
    let known = this.events.get(text);
    if (!known) {
      const signature = parseEventSignature(text);
      known = { signature, topic0: String(web3().eth.abi.encodeEventSignature(signature.canonical)).toLowerCase() };
      this.events.set(text, known);
    }
    return known;
  }
}

interface RawLog {
  address?: unknown;
  topics?: unknown[];
  data?: unknown;
  blockNumber?: unknown;
  blockHash?: unknown;
  transactionHash?: unknown;
  logIndex?: unknown;
  removed?: unknown;
}

function toHeader(value: unknown): BlockHeader | null {
  if (value === null || value === undefined) return null;
  const block = value as { number?: unknown; hash?: unknown; parentHash?: unknown; timestamp?: unknown };
  if (typeof block.hash !== 'string' || !HASH.test(block.hash) || typeof block.parentHash !== 'string' || !HASH.test(block.parentHash)) {
    throw new ProviderFailure('malformed block');
  }
  return {
    number: quantity(block.number, 'block number'), hash: block.hash.toLowerCase(), parentHash: block.parentHash.toLowerCase(),
    timestamp: Number(quantity(block.timestamp, 'block timestamp')),
  };
}

/** A dynamic type's indexed value is only its hash on chain: the topic is what there is to show. */
const isDynamic = (type: string): boolean => type === 'string' || type === 'bytes' || type.endsWith(']') || type.startsWith('tuple');

function toLog(log: RawLog, event: EventSignature): ChainLog {
  const str = (v: unknown, what: string, pattern: RegExp): string => {
    if (typeof v !== 'string' || !pattern.test(v)) throw new ProviderFailure(`malformed log ${what}`);
    return v.toLowerCase();
  };
  const topics = (log.topics ?? []).map((t) => str(t, 'topic', HASH));
  const data = str(log.data ?? '0x', 'data', /^0x(?:[0-9a-fA-F]{2})*$/);
  const { abi } = web3().eth;
  const args: Record<string, Json> = {};
  const indexed = event.inputs.filter((p) => p.indexed);
  if (topics.length !== indexed.length + 1) throw new ProviderFailure('malformed log (topics do not fit the event)');
  indexed.forEach((p, i) => {
    args[p.name] = isDynamic(p.type) ? topics[i + 1]! : toJson(p.type, abi.decodeParameter(p.type, topics[i + 1]!));
  });
  const plain = event.inputs.filter((p) => !p.indexed);
  if (plain.length > 0) {
    let decoded: Record<string, unknown>;
    try {
      decoded = abi.decodeParameters(plain.map((p) => p.type), data) as Record<string, unknown>;
    } catch {
      throw new ProviderFailure('malformed log (data does not fit the event)');
    }
    plain.forEach((p: EventParam, i) => {
      args[p.name] = toJson(p.type, decoded[String(i)]);
    });
  }
  // Arguments in the signature's order, whether indexed or not.
  const ordered = Object.fromEntries(event.inputs.map((p) => [p.name, args[p.name]!]));
  return {
    address: str(log.address, 'address', ADDRESS), blockNumber: quantity(log.blockNumber, 'log block'), blockHash: str(log.blockHash, 'block hash', HASH),
    txHash: str(log.transactionHash, 'transaction hash', HASH), logIndex: Number(quantity(log.logIndex, 'log index')), args: ordered,
  };
}

/** A decoded value as the payload shows it (CONTRACT 8.6): integers as decimal strings, addresses lowercase, bytes 0x-hex. */
function toJson(type: string, value: unknown): Json {
  const array = /^(.*)\[[0-9]*\]$/.exec(type);
  if (array && Array.isArray(value)) return value.map((v) => toJson(array[1]!, v));
  if (typeof value === 'bigint' || typeof value === 'number') return value.toString();
  if (type === 'address' && typeof value === 'string') return value.toLowerCase();
  if (typeof value === 'string' && /^bytes/.test(type)) return value.toLowerCase();
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([k]) => k !== '__length__' && !/^[0-9]+$/.test(k));
    return Object.fromEntries(entries.map(([k, v]) => [k, toJson('', v)]));
  }
  return null;
}

function hex(value: bigint): string {
  return `0x${value.toString(16)}`;
}
