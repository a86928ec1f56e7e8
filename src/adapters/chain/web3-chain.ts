import { inject, injectable, optional } from 'inversify';
import {
  CallRevertedError,
  ChainRejectedError,
  ChainUnavailableError,
  type CallRequest,
  type ProviderCheck,
  type ChainReader,
  type ChainSender,
  type ChainTarget,
  type RejectionCode,
  type SignedTransaction,
  type SignRequest,
  type Simulation,
} from '../../application/ports/chain';
import type { Logger } from '../../application/ports/logger';
import type { Fees } from '../../domain/chain/fees';
import type { TxReceipt } from '../../domain/chain/tx-receipt';
import { ProviderChainIds } from './chain-ids';
import { ProviderFailure, quantity, RpcError, scrub } from './json-rpc';
import { overProviders, Provider, sleep, type Requests, type RetryPolicy } from './providers';
import { toReceipt } from './receipt';
import { decodeRevert } from './web3-abi';
import { web3, type Web3Module } from './web3-module';

export interface Web3ChainOptions {
  /** Bound of each provider call, in ms. Default 5000. */
  readonly timeoutMs?: number;
  /** Pause between two receipt polls of `waitForReceipt`, in ms. Default 100. */
  readonly pollIntervalMs?: number;
  /**
   * Passes over a network's provider list for each request before a call gives up (ChainUnavailableError).
   * Default 10: at a 30% fault rate one request fails them all about once in 170 000 (8 passes: once in 15 000,
   * which the faults bench's ~3 000 requests still met). The pauses between passes add up to about 8 s at most.
   */
  readonly retryRounds?: number;
  /** Pause before the second pass, in ms, doubled for each further pass (with jitter, at most 2 s). Default 100. */
  readonly backoffMs?: number;
  /** Bound of all passes of one call together, in ms. Default 15 000. */
  readonly retryBudgetMs?: number;
  /** The chain ids providers were found to serve; share one across a process's Web3Chains. Default: this chain's own. */
  readonly chainIds?: ProviderChainIds;
  /** Told of each provider failover (CONTRACT 11). Default: none. */
  readonly logger?: Logger;
}
export const Web3ChainOptions = Symbol('Web3ChainOptions');

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_POLL_INTERVAL_MS = 100;
export const DEFAULT_RETRY_ROUNDS = 10;
export const DEFAULT_BACKOFF_MS = 100;
export const DEFAULT_RETRY_BUDGET_MS = 15_000;
export { ChainRejectedError };

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const PRIVATE_KEY = /^(?:0x)?[0-9a-fA-F]{64}$/;
/** Answers of a node to a raw transaction it already holds: the broadcast did happen. */
const ALREADY_KNOWN = /already known|known transaction|already imported|already in (?:the )?(?:tx)?pool|alreadyknown/i;

/** Nodes' words for a nonce already used, or one beyond the next. */
const NONCE_TOO_LOW = /nonce too low|nonce has already been used|already used|NonceTooLow|OldNonce|invalid nonce/i;
const NONCE_TOO_HIGH = /nonce too high|NonceTooHigh|nonce gap/i;
const UNDERPRICED = /underpriced|fee too low|FeeCapTooLow|max fee per gas less than block base fee|insufficient fee/i;
const NO_FUNDS = /insufficient funds|InsufficientFunds/i;

/**
 * The chain ports over web3.js 4 and JSON-RPC over HTTP. Providers of a target are tried in order; each call is
 * bounded by `timeoutMs`; a provider that errors, is rate-limited or times out hands over to the next, and the list
 * is tried again with backoff (providers.ts). A provider's error answer is never taken for a revert or a refusal
 * (classify.ts). Each provider's chain id is checked once, on first use (chain-ids.ts). Transactions are signed
 * locally and sent raw; which nonce a transaction takes is the send path's business (its allocator lives in
 * storage), never this adapter's. No message of this class holds a provider URL or a signer key.
 */
@injectable()
export class Web3Chain implements ChainReader, ChainSender {
  private readonly timeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly policy: RetryPolicy;
  private readonly chainIds: ProviderChainIds;
  private readonly addresses = new Map<string, string>();
  private readonly commons = new Map<number, ReturnType<Web3Module['eth']['accounts']['Common']['custom']>>();

  constructor(@inject(Web3ChainOptions) @optional() options: Web3ChainOptions = {}) {
    this.pollIntervalMs = positive(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 'pollIntervalMs');
    this.policy = retryPolicyOf(options);
    this.timeoutMs = this.policy.timeoutMs;
    this.chainIds = options.chainIds ?? new ProviderChainIds();
  }

  async checkChain(target: ChainTarget): Promise<readonly ProviderCheck[]> {
    return Promise.all(target.rpc.map(async (url, index): Promise<ProviderCheck> => {
      const known = this.chainIds.peek(index, url, target.chainId);
      if (known) return known;
      const provider = new Provider(index, url, this.timeoutMs, Number.POSITIVE_INFINITY, target.rpc);
      try {
        await provider.verify(target, this.chainIds);
      } catch (error) {
        if (!(error instanceof ProviderFailure)) throw error;
      }
      return this.chainIds.peek(index, url, target.chainId) ?? { provider: index + 1, status: 'unavailable' };
    }));
  }

  // ---- ChainReader ----

  async receipt(target: ChainTarget, txHash: string): Promise<TxReceipt | null> {
    checkHash(txHash);
    return this.receiptBy(target, txHash, Number.POSITIVE_INFINITY);
  }

  async waitForReceipt(target: ChainTarget, txHash: string, timeoutMs: number): Promise<TxReceipt | null> {
    checkHash(txHash);
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new Error('waitForReceipt: timeoutMs must be a finite number >= 0');
    const deadline = Date.now() + timeoutMs;
    let answered = false;
    let unavailable: ChainUnavailableError | undefined;
    for (;;) {
      try {
        const receipt = await this.receiptBy(target, txHash, deadline);
        answered = true;
        if (receipt) return receipt;
      } catch (error) {
        if (!(error instanceof ChainUnavailableError)) throw error;
        unavailable = error;
      }
      const pause = Math.min(this.pollIntervalMs, deadline - Date.now());
      if (pause <= 0) break;
      await sleep(pause);
      if (Date.now() >= deadline) break;
    }
    // No provider answered during the whole wait: say so rather than "not mined".
    if (!answered && unavailable) throw unavailable;
    return null;
  }

  async transactionKnown(target: ChainTarget, txHash: string): Promise<boolean> {
    checkHash(txHash);
    return this.over(target, Number.POSITIVE_INFINITY, async (p) => {
      const tx = await p.read('eth_getTransactionByHash', [txHash]);
      return tx !== null && tx !== undefined;
    });
  }

  async balance(target: ChainTarget, address: string): Promise<bigint> {
    checkAddress(address, 'balance');
    return this.over(target, Number.POSITIVE_INFINITY, (p) => p.read('eth_getBalance', [address, 'latest'], (v) => quantity(v, 'balance')));
  }

  async blockNumber(target: ChainTarget): Promise<bigint> {
    return this.over(target, Number.POSITIVE_INFINITY, (p) => p.read('eth_blockNumber', [], (v) => quantity(v, 'block number')));
  }

  async nonce(target: ChainTarget, address: string, block: 'latest' | 'pending'): Promise<number> {
    checkAddress(address, 'nonce');
    return this.over(target, Number.POSITIVE_INFINITY, (p) => p.read('eth_getTransactionCount', [address, block], (v) => Number(quantity(v, 'nonce'))));
  }

  async fees(target: ChainTarget): Promise<Fees> {
    return this.over(target, Number.POSITIVE_INFINITY, async (p) => {
      const base = await p.read('eth_getBlockByNumber', ['latest', false], (block) => {
        const baseFee = block && typeof block === 'object' ? (block as { baseFeePerGas?: unknown }).baseFeePerGas : undefined;
        return baseFee === undefined || baseFee === null ? null : quantity(baseFee, 'base fee');
      });
      const gasPrice = (): Promise<bigint> => p.read('eth_gasPrice', [], (v) => quantity(v, 'gas price'));
      if (base === null) return { kind: 'legacy', gasPrice: await gasPrice() };
      let tip: bigint;
      try {
        tip = await p.call('eth_maxPriorityFeePerGas', [], (v) => quantity(v, 'priority fee'), methodMissing);
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        // A node without eth_maxPriorityFeePerGas: what its legacy gas price offers above the base fee.
        const price = await gasPrice();
        tip = price > base ? price - base : 0n;
      }
      return { kind: 'eip1559', maxFeePerGas: 2n * base + tip, maxPriorityFeePerGas: tip };
    });
  }

  async call(target: ChainTarget, request: CallRequest): Promise<string> {
    const tx = callObject(request);
    const block = blockTag(request);
    return this.over(target, Number.POSITIVE_INFINITY, async (p) => {
      try {
        return await p.call('eth_call', [tx, block], (result) => {
          if (typeof result !== 'string' || !HEX_DATA.test(result)) throw new ProviderFailure('malformed call result');
          return result;
        });
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        throw new CallRevertedError(decodeRevert(error.data, error.detail));
      }
    });
  }

  async simulate(target: ChainTarget, request: CallRequest): Promise<Simulation> {
    const tx = callObject(request);
    const block = blockTag(request);
    return this.over(target, Number.POSITIVE_INFINITY, async (p): Promise<Simulation> => {
      // The node ran the transaction and it failed (reverts, lacks funds): every provider would say so. A rate limit
      // or the provider's own trouble says nothing about the transaction: the next provider is asked.
      try {
        await p.call('eth_call', [tx, block]);
        // The block is named only when asked for: some providers refuse eth_estimateGas's optional block parameter.
        const gasEstimate = await p.call('eth_estimateGas', request.block === undefined ? [tx] : [tx, block], (v) => quantity(v, 'gas estimate'));
        return { ok: true, gasEstimate };
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        return { ok: false, revertReason: decodeRevert(error.data, error.detail) };
      }
    });
  }

  // ---- ChainSender ----

  address(signer: string): string {
    const key = normalizeKey(signer);
    // Deriving an address is an elliptic-curve multiplication (~1 ms): once per key and process.
    const known = this.addresses.get(key);
    if (known) return known;
    try {
      const address = web3().eth.accounts.privateKeyToAddress(key);
      this.addresses.set(key, address);
      return address;
    } catch {
      throw new Error('the signer key is not a valid secp256k1 private key');
    }
  }

  async sign(request: SignRequest): Promise<SignedTransaction> {
    checkSign(request);
    const key = normalizeKey(request.signer);
    const from = this.address(key);
    const { TransactionFactory } = web3().eth.accounts;
    const { bytesToHex, hexToBytes } = web3().utils;
    const fees = request.fees.kind === 'eip1559'
      ? { type: 2, maxFeePerGas: request.fees.maxFeePerGas, maxPriorityFeePerGas: request.fees.maxPriorityFeePerGas }
      : { type: 0, gasPrice: request.fees.gasPrice };
    try {
      const tx = TransactionFactory.fromTxData({
        ...fees, nonce: BigInt(request.nonce), gasLimit: request.gasLimit, to: request.to, value: request.valueWei, data: request.data,
        chainId: BigInt(request.chainId),
      } as never, { common: this.common(request.chainId) });
      // tx.sign, not web3's signTransaction: that one recovers the sender from the signature again (2 ms), and the
      // sender is already known from the key.
      const signed = (tx as { sign(key: Uint8Array): { serialize(): Uint8Array; hash(): Uint8Array } }).sign(hexToBytes(key));
      return { raw: bytesToHex(signed.serialize()), hash: bytesToHex(signed.hash()), from, nonce: request.nonce };
    } catch (error) {
      const message = error instanceof Error ? scrub(error.message, [key]) : 'unknown error';
      throw new Error(`signing failed: ${message}`);
    }
  }

  async broadcast(target: ChainTarget, signed: SignedTransaction): Promise<void> {
    checkHash(signed.hash);
    if (!HEX_DATA.test(signed.raw)) throw new Error('broadcast: the raw transaction is not 0x-hex');
    await overProviders(target, this.chainIds, this.policy, Number.POSITIVE_INFINITY, (requests) => this.sendRaw(requests, target, signed),
      (failures) => `transaction ${signed.hash} (nonce ${signed.nonce}) was signed but no provider accepted it; it may still reach the network (${failures})`);
  }

  // ---- internals ----

  /** The chain's parameters for signing, built once per chain id (building them costs more than signing). */
  private common(chainId: number): ReturnType<Web3Module['eth']['accounts']['Common']['custom']> {
    let common = this.commons.get(chainId);
    if (!common) {
      common = web3().eth.accounts.Common.custom({ name: 'chainflow', chainId, networkId: chainId, defaultHardfork: 'london' }, { baseChain: 'mainnet' });
      this.commons.set(chainId, common);
    }
    return common;
  }

  private receiptBy(target: ChainTarget, txHash: string, deadline: number): Promise<TxReceipt | null> {
    return this.over(target, deadline, async (p) => {
      const receipt = await p.read('eth_getTransactionReceipt', [txHash], toReceipt);
      if (receipt && receipt.effectiveGasPrice === undefined && receipt.gasPrice === undefined) {
        // A pre-London receipt carries no price: the transaction's gasPrice is what was paid per gas.
        const gasPrice = await p.read('eth_getTransactionByHash', [txHash], (tx) => {
          const price = tx && typeof tx === 'object' ? (tx as { gasPrice?: unknown }).gasPrice : undefined;
          return price === undefined || price === null ? undefined : quantity(price, 'transaction');
        });
        if (gasPrice !== undefined) return { ...receipt, gasPrice };
      }
      return receipt;
    });
  }

  private over<T>(target: ChainTarget, deadline: number, work: (requests: Requests) => Promise<T>): Promise<T> {
    return overProviders(target, this.chainIds, this.policy, deadline, work);
  }

  /**
   * A rate limit or a provider's trouble is no verdict on the transaction: the next provider is asked (Requests),
   * and when none takes it the send stays submitted and these bytes are broadcast again later.
   */
  private async sendRaw(p: Requests, target: ChainTarget, signed: SignedTransaction): Promise<void> {
    try {
      await p.call('eth_sendRawTransaction', [signed.raw]);
    } catch (error) {
      if (error instanceof RpcError) {
        if (ALREADY_KNOWN.test(error.detail)) return;
        // "nonce too low" and the like also come back when an earlier provider did deliver these very bytes and
        // only its answer was lost: a node that knows the transaction has it.
        if (await p.read('eth_getTransactionByHash', [signed.hash]).catch(() => null)) return;
        throw new ChainRejectedError(target.network, error.detail, rejection(error.detail));
      }
      throw error;
    }
  }
}

/** A provider without eth_maxPriorityFeePerGas (older nodes, some L2s). */
const METHOD_MISSING = /method .*(?:not found|not supported|does not exist|not available)|unsupported method/i;

function methodMissing(error: RpcError): boolean {
  return METHOD_MISSING.test(error.detail) || error.code === -32601 || error.code === -32004;
}

function rejection(detail: string): RejectionCode {
  if (NONCE_TOO_LOW.test(detail)) return 'nonce_too_low';
  if (NONCE_TOO_HIGH.test(detail)) return 'nonce_too_high';
  if (NO_FUNDS.test(detail)) return 'insufficient_funds';
  if (UNDERPRICED.test(detail)) return 'underpriced';
  return 'rejected';
}

function callObject(request: CallRequest): Record<string, string> {
  checkAddress(request.to, 'call');
  if (request.from !== undefined) checkAddress(request.from, 'call');
  if (!HEX_DATA.test(request.data)) throw new Error('call: data must be 0x-hex bytes');
  if (request.valueWei !== undefined && (typeof request.valueWei !== 'bigint' || request.valueWei < 0n)) throw new Error('call: valueWei must be a bigint >= 0');
  return {
    ...(request.from ? { from: request.from } : {}), to: request.to, data: request.data,
    ...(request.valueWei ? { value: hex(request.valueWei) } : {}),
  };
}

/** The block tag of a call: the block asked for (0x-hex), else `latest`. */
function blockTag(request: CallRequest): string {
  if (request.block === undefined) return 'latest';
  if (typeof request.block !== 'bigint' || request.block < 0n) throw new Error('call: block must be a bigint >= 0');
  return hex(request.block);
}

/** The failover and retry policy the options ask for (defaults above), shared by the chain and log adapters. */
export function retryPolicyOf(options: Web3ChainOptions): RetryPolicy {
  const rounds = options.retryRounds ?? DEFAULT_RETRY_ROUNDS;
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('Web3Chain: retryRounds must be an integer >= 1');
  return {
    timeoutMs: positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs'), rounds,
    backoffMs: positive(options.backoffMs ?? DEFAULT_BACKOFF_MS, 'backoffMs'),
    budgetMs: positive(options.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS, 'retryBudgetMs'),
    ...(options.logger ? { logger: options.logger } : {}),
  };
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`Web3Chain: ${name} must be a positive number of milliseconds`);
  return value;
}

function checkHash(txHash: string): void {
  if (typeof txHash !== 'string' || !TX_HASH.test(txHash)) throw new Error('the transaction hash is not a 32-byte 0x-hex string');
}

function checkAddress(address: string, what: string): void {
  if (typeof address !== 'string' || !ADDRESS.test(address)) throw new Error(`${what}: the address is not a 20-byte 0x-hex address`);
}

function checkSign(request: SignRequest): void {
  if (!ADDRESS.test(request.to)) throw new Error('sign: the destination is not a 20-byte 0x-hex address');
  if (typeof request.valueWei !== 'bigint' || request.valueWei < 0n) throw new Error('sign: valueWei must be a bigint >= 0');
  if (!HEX_DATA.test(request.data)) throw new Error('sign: data must be 0x-hex bytes');
  if (typeof request.gasLimit !== 'bigint' || request.gasLimit <= 0n) throw new Error('sign: gasLimit must be a bigint > 0');
  if (!Number.isSafeInteger(request.nonce) || request.nonce < 0) throw new Error('sign: nonce must be an integer >= 0');
}

function normalizeKey(signer: string): string {
  if (typeof signer !== 'string' || !PRIVATE_KEY.test(signer)) throw new Error('the signer key is not a 32-byte hex private key');
  return `0x${signer.replace(/^0x/i, '').toLowerCase()}`;
}


function hex(value: bigint): string {
  return `0x${value.toString(16)}`;
}
