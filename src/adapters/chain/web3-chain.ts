import { inject, injectable, optional } from 'inversify';
import type { Receipt } from '../../domain/journal/journal-event';
import {
  ChainUnavailableError,
  type Broadcast,
  type BroadcastRequest,
  type ChainReceiptReader,
  type ChainSender,
  type ChainTarget,
  type SignerAddresses,
} from '../../application/ports/chain';
import { ChainRejectedError } from './errors';
import { ProviderFailure, quantity, RpcError, rpcCall, scrub } from './json-rpc';
import { toReceipt } from './receipt';
import { web3 } from './web3-module';

export interface Web3ChainOptions {
  /** Bound of each provider call, in ms. Default 5000. */
  readonly timeoutMs?: number;
  /** Pause between two receipt polls of `waitForReceipt`, in ms. Default 100. */
  readonly pollIntervalMs?: number;
}
export const Web3ChainOptions = Symbol('Web3ChainOptions');

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_POLL_INTERVAL_MS = 100;
export { ChainRejectedError };

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const PRIVATE_KEY = /^(?:0x)?[0-9a-fA-F]{64}$/;
/** Answers of a node to a raw transaction it already holds: the broadcast did happen. */
const ALREADY_KNOWN = /already known|known transaction|already imported|already in (?:the )?(?:tx)?pool|alreadyknown/i;

/** One provider, its calls bounded by the per-call timeout and by an overall deadline. */
class Provider {
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly deadline: number,
    private readonly secrets: readonly string[],
  ) {}

  call(method: string, params: readonly unknown[]): Promise<unknown> {
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new ProviderFailure('time is up'));
    return rpcCall(this.url, method, params, Math.min(this.timeoutMs, remaining), this.secrets);
  }

  /** A call whose JSON-RPC error answer counts as a failure of this provider (reads: another may answer). */
  async read(method: string, params: readonly unknown[]): Promise<unknown> {
    try {
      return await this.call(method, params);
    } catch (error) {
      if (error instanceof RpcError) throw new ProviderFailure(`JSON-RPC error${error.code === undefined ? '' : ` ${error.code}`}`);
      throw error;
    }
  }
}

/**
 * Broadcasts of one signer on one chain are serialized process-wide (whatever the number of Web3Chain instances
 * the container makes), so that two of them never read the same pending nonce.
 */
const signerQueues = new Map<string, Promise<void>>();

interface Signed {
  readonly raw: string;
  readonly hash: string;
  readonly nonce: number;
}

/**
 * The chain ports over web3.js 4 and JSON-RPC over HTTP. Providers of a target are tried in order; each call is
 * bounded by `timeoutMs`; a provider that errors or times out hands over to the next. Transactions are signed
 * locally (EIP-1559 when the node reports a base fee, legacy otherwise) and sent raw. No message of this class
 * holds a provider URL or a signer key.
 */
@injectable()
export class Web3Chain implements ChainReceiptReader, ChainSender, SignerAddresses {
  private readonly timeoutMs: number;
  private readonly pollIntervalMs: number;

  constructor(@inject(Web3ChainOptions) @optional() options: Web3ChainOptions = {}) {
    this.timeoutMs = positive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.pollIntervalMs = positive(options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, 'pollIntervalMs');
  }

  async read(target: ChainTarget, txHash: string): Promise<Receipt | null> {
    checkHash(txHash);
    return this.receipt(target, txHash, Number.POSITIVE_INFINITY);
  }

  async waitForReceipt(target: ChainTarget, txHash: string, timeoutMs: number): Promise<Receipt | null> {
    checkHash(txHash);
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new Error('waitForReceipt: timeoutMs must be a finite number >= 0');
    const deadline = Date.now() + timeoutMs;
    let answered = false;
    let unavailable: ChainUnavailableError | undefined;
    for (;;) {
      try {
        const receipt = await this.receipt(target, txHash, deadline);
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

  async balance(target: ChainTarget, address: string): Promise<bigint> {
    if (!ADDRESS.test(address)) throw new Error('balance: the address is not a 20-byte 0x-hex address');
    return this.overProviders(target, Number.POSITIVE_INFINITY, async (provider) =>
      quantity(await provider.read('eth_getBalance', [address, 'latest']), 'balance'));
  }

  async addressOf(signer: string): Promise<string> {
    return addressOfKey(normalizeKey(signer, 'addressOf'), 'addressOf');
  }

  async broadcast(request: BroadcastRequest): Promise<Broadcast> {
    const { target } = request;
    checkBroadcast(request);
    const key = normalizeKey(request.signer);
    const from = addressOfKey(key, 'broadcast');
    const secrets = [key];
    return this.exclusive(`${target.chainId}:${from.toLowerCase()}`, async () => {
      let signed: Signed | undefined;
      const failures: string[] = [];
      for (const [index, url] of target.rpc.entries()) {
        const provider = new Provider(url, this.timeoutMs, Number.POSITIVE_INFINITY, [...target.rpc, ...secrets]);
        try {
          // Signed once: after a failed send, the same bytes go to the next provider (never a second nonce).
          signed ??= await this.prepareAndSign(provider, request, from, key);
          await this.sendRaw(provider, target, signed);
          return { txHash: signed.hash, from, nonce: signed.nonce };
        } catch (error) {
          if (!(error instanceof ProviderFailure)) throw error;
          failures.push(`provider ${index + 1}: ${error.reason}`);
        }
      }
      if (failures.length === 0) throw new ChainUnavailableError(target.network, 'no RPC provider configured');
      const summary = failures.join('; ');
      throw new ChainUnavailableError(target.network, signed
        ? `transaction ${signed.hash} (nonce ${signed.nonce}) was signed but no provider accepted it; it may still reach the network (${summary})`
        : `no provider answered (${summary})`);
    });
  }

  private receipt(target: ChainTarget, txHash: string, deadline: number): Promise<Receipt | null> {
    return this.overProviders(target, deadline, async (provider) => {
      const receipt = toReceipt(await provider.read('eth_getTransactionReceipt', [txHash]));
      if (receipt && receipt.effectiveGasPrice === undefined && receipt.gasPrice === undefined) {
        // A pre-London receipt carries no price: the transaction's gasPrice is what was paid per gas.
        const tx = await provider.read('eth_getTransactionByHash', [txHash]);
        const gasPrice = tx && typeof tx === 'object' ? (tx as { gasPrice?: unknown }).gasPrice : undefined;
        if (gasPrice !== undefined && gasPrice !== null) return { ...receipt, gasPrice: quantity(gasPrice, 'transaction').toString() };
      }
      return receipt;
    });
  }

  /** Runs `work` against each provider in order until one answers; ChainUnavailableError when none did. */
  private async overProviders<T>(target: ChainTarget, deadline: number, work: (provider: Provider) => Promise<T>): Promise<T> {
    const failures: string[] = [];
    for (const [index, url] of target.rpc.entries()) {
      if (Date.now() >= deadline) {
        failures.push(`provider ${index + 1}: not tried, time is up`);
        break;
      }
      try {
        return await work(new Provider(url, this.timeoutMs, deadline, target.rpc));
      } catch (error) {
        if (!(error instanceof ProviderFailure)) throw error;
        failures.push(`provider ${index + 1}: ${error.reason}`);
      }
    }
    if (failures.length === 0) throw new ChainUnavailableError(target.network, 'no RPC provider configured');
    throw new ChainUnavailableError(target.network, `no provider answered (${failures.join('; ')})`);
  }

  private async prepareAndSign(provider: Provider, request: BroadcastRequest, from: string, key: string): Promise<Signed> {
    const { target } = request;
    const chainId = quantity(await provider.read('eth_chainId', []), 'chain id');
    if (chainId !== BigInt(target.chainId)) throw new ProviderFailure(`serves chain ${chainId}, not ${target.chainId}`);
    const nonce = quantity(await provider.read('eth_getTransactionCount', [from, 'pending']), 'nonce');
    const data = request.data ?? '0x';
    let gasLimit = request.gasLimit;
    if (gasLimit === undefined) {
      try {
        gasLimit = quantity(await provider.call('eth_estimateGas', [{ from, to: request.to, value: hex(request.valueWei), data }]), 'gas estimate');
      } catch (error) {
        // The node ran the transaction and it failed (reverts, lacks funds): every provider would say so.
        if (error instanceof RpcError) throw new ChainRejectedError(target.network, `gas estimation failed: ${error.detail}`);
        throw error;
      }
    }
    const block = await provider.read('eth_getBlockByNumber', ['latest', false]);
    const baseFee = block && typeof block === 'object' ? (block as { baseFeePerGas?: unknown }).baseFeePerGas : undefined;
    const fees: Record<string, unknown> = {};
    if (baseFee !== undefined && baseFee !== null) {
      const base = quantity(baseFee, 'base fee');
      let tip: bigint;
      try {
        tip = quantity(await provider.call('eth_maxPriorityFeePerGas', []), 'priority fee');
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        // A node without eth_maxPriorityFeePerGas: what its legacy gas price offers above the base fee.
        const price = quantity(await provider.read('eth_gasPrice', []), 'gas price');
        tip = price > base ? price - base : 0n;
      }
      Object.assign(fees, { type: 2, maxPriorityFeePerGas: tip, maxFeePerGas: 2n * base + tip });
    } else {
      Object.assign(fees, { type: 0, gasPrice: quantity(await provider.read('eth_gasPrice', []), 'gas price') });
    }
    const { Common, TransactionFactory, signTransaction } = web3().eth.accounts;
    try {
      const common = Common.custom({ name: 'chainflow', chainId: target.chainId, networkId: target.chainId, defaultHardfork: 'london' }, { baseChain: 'mainnet' });
      const tx = TransactionFactory.fromTxData({
        ...fees, nonce, gasLimit, to: request.to, value: request.valueWei, data, chainId: BigInt(target.chainId),
      } as never, { common });
      const signed = await signTransaction(tx, key);
      return { raw: signed.rawTransaction, hash: signed.transactionHash, nonce: Number(nonce) };
    } catch (error) {
      const message = error instanceof Error ? scrub(error.message, [key, ...target.rpc]) : 'unknown error';
      throw new Error(`broadcast: signing failed: ${message}`);
    }
  }

  private async sendRaw(provider: Provider, target: ChainTarget, signed: Signed): Promise<void> {
    try {
      await provider.call('eth_sendRawTransaction', [signed.raw]);
    } catch (error) {
      if (error instanceof RpcError) {
        if (ALREADY_KNOWN.test(error.detail)) return;
        // "nonce too low" and the like also come back when an earlier provider did deliver these very bytes and
        // only its answer was lost: a node that knows the transaction has it.
        if (await provider.read('eth_getTransactionByHash', [signed.hash]).catch(() => null)) return;
        throw new ChainRejectedError(target.network, error.detail);
      }
      throw error;
    }
  }

  private async exclusive<T>(queue: string, work: () => Promise<T>): Promise<T> {
    const previous = signerQueues.get(queue) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => { release = resolve; });
    const tail = previous.then(() => mine);
    signerQueues.set(queue, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (signerQueues.get(queue) === tail) signerQueues.delete(queue);
    }
  }
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`Web3Chain: ${name} must be a positive number of milliseconds`);
  return value;
}

function checkHash(txHash: string): void {
  if (typeof txHash !== 'string' || !TX_HASH.test(txHash)) throw new Error('the transaction hash is not a 32-byte 0x-hex string');
}

function checkBroadcast(request: BroadcastRequest): void {
  if (!ADDRESS.test(request.to)) throw new Error('broadcast: the destination is not a 20-byte 0x-hex address');
  if (typeof request.valueWei !== 'bigint' || request.valueWei < 0n) throw new Error('broadcast: valueWei must be a bigint >= 0');
  if (request.data !== undefined && !HEX_DATA.test(request.data)) throw new Error('broadcast: data must be 0x-hex bytes');
  if (request.gasLimit !== undefined && (typeof request.gasLimit !== 'bigint' || request.gasLimit <= 0n)) {
    throw new Error('broadcast: gasLimit must be a bigint > 0');
  }
}

function normalizeKey(signer: string, caller = 'broadcast'): string {
  if (typeof signer !== 'string' || !PRIVATE_KEY.test(signer)) throw new Error(`${caller}: the signer key is not a 32-byte hex private key`);
  return `0x${signer.replace(/^0x/i, '').toLowerCase()}`;
}

/** The checksummed address of a normalized key; the error never holds the key (web3's message would). */
function addressOfKey(key: string, caller: string): string {
  try {
    return web3().eth.accounts.privateKeyToAddress(key);
  } catch {
    throw new Error(`${caller}: the signer key is not a valid secp256k1 private key`);
  }
}

function hex(value: bigint): string {
  return `0x${value.toString(16)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
