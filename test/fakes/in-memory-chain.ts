import { createHash } from 'node:crypto';
import type { Receipt } from '../../src/domain/journal/journal-event';
import {
  ChainUnavailableError,
  type Broadcast,
  type BroadcastRequest,
  type ChainReceiptReader,
  type ChainSender,
  type ChainTarget,
  type SignerAddresses,
} from '../../src/application/ports/chain';
import { ChainRejectedError } from '../../src/adapters/chain/errors';

/** How a provider URL behaves in the fake. */
export type ProviderMode = 'ok' | 'refuse' | 'hang' | 'http-error';

export interface InMemoryChainOptions {
  /** The chain the fake serves (default 31337). A target with another chain id finds every provider "on another chain" when broadcasting. */
  readonly chainId?: number;
  /** Base fee of every block (default 1 gwei). */
  readonly baseFeeWei?: bigint;
  /** Priority fee a broadcast offers (default 1 gwei): effective gas price = base fee + priority fee. */
  readonly priorityFeeWei?: bigint;
  /** An L1 data fee charged on every landed transaction and reported as receipt.l1Fee (OP-stack); none by default. */
  readonly l1FeeWei?: bigint;
  /** Per-call provider timeout, as the adapter's (default 5000 ms). A 'hang' provider fails after it. */
  readonly timeoutMs?: number;
  /** waitForReceipt poll interval (default 10 ms). */
  readonly pollIntervalMs?: number;
}

interface Tx {
  readonly hash: string;
  readonly from: string;
  readonly to: string;
  readonly nonce: number;
  readonly valueWei: bigint;
  readonly data: string;
  readonly gasLimit: bigint;
  readonly effectiveGasPrice: bigint;
  receipt?: Receipt;
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const PRIVATE_KEY = /^(?:0x)?[0-9a-fA-F]{64}$/;
/** Keys are scalars below the order of secp256k1's group (and above zero). */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** Gas the fake's reverting code burns beyond the intrinsic gas (PUSH1 PUSH1 REVERT: 3 + 3 + 0). */
const REVERT_EXECUTION_GAS = 6n;

class ChainState {
  readonly balances = new Map<string, bigint>();
  readonly nonces = new Map<string, number>();
  readonly signers = new Map<string, string>();
  readonly reverting = new Set<string>();
  readonly providers = new Map<string, ProviderMode>();
  readonly txs = new Map<string, Tx>();
  pending: Tx[] = [];
  automine = true;
  blockNumber = 0;
  receiptReads = 0;
}

class Failure extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * The chain ports in memory: balances, nonces, instant mining, receipts in the adapter's shape. Providers are
 * URLs whose behaviour the test picks (`setProvider(url, 'refuse' | 'hang' | 'http-error')`, any other URL
 * answers); calls to an address can be made to revert (`revertCallsTo`); mining can be held (`holdMining`,
 * `mine`, `dropPending`). Passes the same contract tests as the web3 adapter (test/contract/chain.contract.ts).
 *
 * Gas: 21 000 plus calldata, with Prague's calldata floor (as anvil 1.x); a reverting call burns 6 more, like
 * `PUSH1 0 PUSH1 0 REVERT`. Signers are known by `addAccount(key, address)`; an unknown key gets a stable
 * made-up address with no balance.
 */
export class InMemoryChain implements ChainReceiptReader, ChainSender, SignerAddresses {
  readonly chainId: number;
  private readonly baseFee: bigint;
  private readonly priorityFee: bigint;
  private readonly l1Fee: bigint | undefined;
  private readonly timeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly state: ChainState;

  constructor(private readonly options: InMemoryChainOptions = {}, state?: ChainState) {
    this.chainId = options.chainId ?? 31337;
    this.baseFee = options.baseFeeWei ?? 1_000_000_000n;
    this.priorityFee = options.priorityFeeWei ?? 1_000_000_000n;
    this.l1Fee = options.l1FeeWei;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.pollIntervalMs = options.pollIntervalMs ?? 10;
    this.state = state ?? new ChainState();
  }

  /**
   * Another client of the same chain (balances, transactions, provider behaviours shared) with other
   * per-call timeout / poll interval: what `new Web3Chain({ timeoutMs })` is to another Web3Chain.
   */
  client(options: Pick<InMemoryChainOptions, 'timeoutMs' | 'pollIntervalMs'>): InMemoryChain {
    return new InMemoryChain({ ...this.options, ...options }, this.state);
  }

  /** Receipt reads answered (by any provider), for tests that count them. */
  get receiptReads(): number {
    return this.state.receiptReads;
  }

  // ---- test controls ----

  addAccount(privateKey: string, address: string, balanceWei = 0n): this {
    this.state.signers.set(normalizeKey(privateKey), address);
    this.setBalance(address, balanceWei);
    return this;
  }

  setBalance(address: string, wei: bigint): this {
    this.state.balances.set(address.toLowerCase(), wei);
    return this;
  }

  revertCallsTo(address: string): this {
    this.state.reverting.add(address.toLowerCase());
    return this;
  }

  setProvider(url: string, mode: ProviderMode): this {
    this.state.providers.set(url, mode);
    return this;
  }

  /** Transactions stay pending (no receipt) until `mine()`. */
  holdMining(): this {
    this.state.automine = false;
    return this;
  }

  /** Mines every pending transaction, one block each, and resumes automining. */
  mine(): this {
    this.state.automine = true;
    for (const tx of this.state.pending) this.land(tx);
    this.state.pending = [];
    return this;
  }

  /** Forgets the pending transactions: they never get a receipt (dropped). */
  dropPending(): this {
    for (const tx of this.state.pending) this.state.txs.delete(tx.hash);
    this.state.pending = [];
    return this;
  }

  // ---- ports ----

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
    if (!answered && unavailable) throw unavailable;
    return null;
  }

  async balance(target: ChainTarget, address: string): Promise<bigint> {
    if (!ADDRESS.test(address)) throw new Error('balance: the address is not a 20-byte 0x-hex address');
    return this.overProviders(target, Number.POSITIVE_INFINITY, async () => this.state.balances.get(address.toLowerCase()) ?? 0n);
  }

  async addressOf(signer: string): Promise<string> {
    const key = normalizeKey(signer, 'addressOf');
    const n = BigInt(key);
    if (n === 0n || n >= SECP256K1_ORDER) throw new Error('addressOf: the signer key is not a valid secp256k1 private key');
    return this.state.signers.get(key) ?? madeUpAddress(key);
  }

  async broadcast(request: BroadcastRequest): Promise<Broadcast> {
    const { target } = request;
    checkBroadcast(request);
    const key = normalizeKey(request.signer);
    const from = this.state.signers.get(key) ?? madeUpAddress(key);
    return this.overProviders(target, Number.POSITIVE_INFINITY, async () => {
      if (target.chainId !== this.chainId) throw new Failure(`serves chain ${this.chainId}, not ${target.chainId}`);
      const data = request.data ?? '0x';
      const intrinsic = gasOf(data);
      const reverts = this.state.reverting.has(request.to.toLowerCase());
      if (request.gasLimit === undefined && reverts) throw new ChainRejectedError(target.network, 'gas estimation failed: execution reverted');
      const gasLimit = request.gasLimit ?? intrinsic;
      if (gasLimit < intrinsic) throw new ChainRejectedError(target.network, 'intrinsic gas too low');
      const maxFee = 2n * this.baseFee + this.priorityFee;
      const balance = this.state.balances.get(from.toLowerCase()) ?? 0n;
      if (balance < request.valueWei + gasLimit * maxFee + (this.l1Fee ?? 0n)) {
        throw new ChainRejectedError(target.network, 'insufficient funds for gas * price + value');
      }
      const nonce = this.state.nonces.get(from.toLowerCase()) ?? 0;
      this.state.nonces.set(from.toLowerCase(), nonce + 1);
      const hash = `0x${createHash('sha256').update(`${this.chainId}:${from.toLowerCase()}:${nonce}:${this.state.txs.size}`).digest('hex')}`;
      const tx: Tx = {
        hash, from, to: request.to, nonce, valueWei: request.valueWei, data, gasLimit,
        effectiveGasPrice: this.baseFee + this.priorityFee,
      };
      this.state.txs.set(hash, tx);
      if (this.state.automine) this.land(tx);
      else this.state.pending.push(tx);
      return { txHash: hash, from, nonce };
    });
  }

  // ---- internals ----

  private land(tx: Tx): void {
    const reverts = this.state.reverting.has(tx.to.toLowerCase());
    const gasUsed = gasOf(tx.data, reverts ? REVERT_EXECUTION_GAS : 0n);
    const fee = gasUsed * tx.effectiveGasPrice + (this.l1Fee ?? 0n);
    const from = tx.from.toLowerCase();
    this.state.balances.set(from, (this.state.balances.get(from) ?? 0n) - fee - (reverts ? 0n : tx.valueWei));
    if (!reverts) this.state.balances.set(tx.to.toLowerCase(), (this.state.balances.get(tx.to.toLowerCase()) ?? 0n) + tx.valueWei);
    this.state.blockNumber += 1;
    tx.receipt = {
      status: reverts ? 0 : 1,
      blockNumber: String(this.state.blockNumber),
      gasUsed: gasUsed.toString(),
      effectiveGasPrice: tx.effectiveGasPrice.toString(),
      ...(this.l1Fee === undefined ? {} : { l1Fee: this.l1Fee.toString() }),
    };
  }

  private receipt(target: ChainTarget, txHash: string, deadline: number): Promise<Receipt | null> {
    return this.overProviders(target, deadline, async () => {
      this.state.receiptReads += 1;
      const receipt = this.state.txs.get(txHash.toLowerCase())?.receipt;
      return receipt ? { ...receipt } : null;
    });
  }

  /** The adapter's provider walk: in order, each bounded by the timeout, a failure hands over to the next. */
  private async overProviders<T>(target: ChainTarget, deadline: number, work: () => Promise<T>): Promise<T> {
    const failures: string[] = [];
    for (const [index, url] of target.rpc.entries()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        failures.push(`provider ${index + 1}: not tried, time is up`);
        break;
      }
      try {
        await this.reach(url, Math.min(this.timeoutMs, remaining));
        return await work();
      } catch (error) {
        if (!(error instanceof Failure)) throw error;
        failures.push(`provider ${index + 1}: ${error.reason}`);
      }
    }
    if (failures.length === 0) throw new ChainUnavailableError(target.network, 'no RPC provider configured');
    throw new ChainUnavailableError(target.network, `no provider answered (${failures.join('; ')})`);
  }

  private async reach(url: string, timeoutMs: number): Promise<void> {
    if (!/^https?:\/\//i.test(url)) throw new Failure('not an http(s) URL');
    switch (this.state.providers.get(url) ?? 'ok') {
      case 'ok':
        return;
      case 'refuse':
        throw new Failure('connection refused');
      case 'http-error':
        throw new Failure('HTTP 503');
      case 'hang':
        await sleep(timeoutMs);
        throw new Failure(`timed out after ${timeoutMs} ms`);
    }
  }
}

/**
 * Gas of a transaction with this calldata burning `execution` gas: 21 000 plus calldata (4 per zero byte, 16 per
 * other) plus execution, at least Prague's EIP-7623 calldata floor (21 000 + 10 per token).
 */
function gasOf(data: string, execution = 0n): bigint {
  let zero = 0n;
  let other = 0n;
  for (let i = 2; i < data.length; i += 2) {
    if (data.slice(i, i + 2) === '00') zero += 1n;
    else other += 1n;
  }
  const standard = 21_000n + 4n * zero + 16n * other + execution;
  const floor = 21_000n + 10n * (zero + 4n * other);
  return standard > floor ? standard : floor;
}

function madeUpAddress(key: string): string {
  return `0x${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
