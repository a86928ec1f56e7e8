import { createHash } from 'node:crypto';
import {
  CallRevertedError,
  ChainMismatchError,
  ChainRejectedError,
  ChainUnavailableError,
  type CallRequest,
  type ProviderCheck,
  type ChainReader,
  type ChainSender,
  type ChainTarget,
  type SignedTransaction,
  type SignRequest,
  type Simulation,
} from '../../src/application/ports/chain';
import type { Fees } from '../../src/domain/chain/fees';
import type { TxReceipt } from '../../src/domain/chain/tx-receipt';

/**
 * How a provider URL behaves in the fake: answers, refuses connections, hangs past the timeout, answers 503, is
 * rate-limited (-32005), or serves another chain (`other-chain`: chain id 999).
 */
export type ProviderMode = 'ok' | 'refuse' | 'hang' | 'http-error' | 'rate-limited' | 'other-chain';

/** The chain an `other-chain` provider serves. */
export const OTHER_CHAIN_ID = 999;

export interface InMemoryChainOptions {
  /** The chain the fake serves (default 31337). A target with another chain id finds every provider "on another chain". */
  readonly chainId?: number;
  /** Base fee of every block (default 1 gwei). */
  readonly baseFeeWei?: bigint;
  /** Priority fee the chain suggests (default 1 gwei). */
  readonly priorityFeeWei?: bigint;
  /** An L1 data fee charged on every landed transaction and reported as receipt.l1Fee (OP-stack); none by default. */
  readonly l1FeeWei?: bigint;
  /** Per-call provider timeout, as the adapter's (default 5000 ms). A 'hang' provider fails after it. */
  readonly timeoutMs?: number;
  /** waitForReceipt poll interval (default 10 ms). */
  readonly pollIntervalMs?: number;
  /** Passes over the provider list before ChainUnavailableError, as the adapter's (default 10). */
  readonly retryRounds?: number;
}

interface Tx {
  readonly hash: string;
  readonly from: string;
  readonly to: string;
  readonly nonce: number;
  readonly valueWei: bigint;
  readonly data: string;
  readonly gasLimit: bigint;
  readonly fees: Fees;
  readonly chainId: number;
  receipt?: TxReceipt;
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
  /** Mined transactions per sender (the `latest` nonce). */
  readonly mined = new Map<string, number>();
  readonly signers = new Map<string, string>();
  readonly reverting = new Set<string>();
  /** Reverts only when run for real with a gas price (simulation, with none, passes). */
  readonly revertingOnChain = new Set<string>();
  readonly views = new Map<string, (data: string) => string>();
  readonly providers = new Map<string, ProviderMode>();
  readonly txs = new Map<string, Tx>();
  /** The pool: pending transactions by `from:nonce`. */
  readonly pool = new Map<string, Tx>();
  automine = true;
  blockNumber = 0;
  receiptReads = 0;
  broadcasts = 0;
  /** The block each view call and simulation ran at (undefined: latest), in order: tests check a replay's. */
  readonly callBlocks: Array<{ readonly kind: 'call' | 'simulate'; readonly to: string; readonly block: bigint | undefined }> = [];
  /** Broadcasts refused with "nonce too low/high" until this many more (a node that lost sync). */
  nonceErrors = 0;
  /** Calls that fail (503 or rate limit) before the next is served, whatever the provider. */
  transientFaults: { count: number; mode: 'http-error' | 'rate-limited' } = { count: 0, mode: 'http-error' };
}

class Failure extends Error {
  constructor(readonly reason: string, readonly servedChainId?: number) {
    super(reason);
  }
}

/**
 * The chain ports in memory: balances, nonces, a pool, instant mining (or held), receipts as the domain types them.
 * Providers are URLs whose behaviour the test picks (`setProvider(url, 'refuse' | 'hang' | 'http-error')`, any
 * other URL answers); calls to an address can be made to revert (`revertCallsTo`, or only on chain:
 * `revertOnChainOnly`) or answer a view call (`answerCalls`); mining can be held (`holdMining`, `mine`,
 * `dropPending`). Passes the same contract tests as the web3 adapter (test/contract/chain.contract.ts).
 *
 * Gas: 21 000 plus calldata, with Prague's calldata floor (as anvil 1.x); a reverting call burns 6 more, like
 * `PUSH1 0 PUSH1 0 REVERT`. Signers are known by `addAccount(key, address)`; an unknown key gets a stable made-up
 * address with no balance. A replacement at a pooled nonce must raise both fee fields by 10% or more.
 */
export class InMemoryChain implements ChainReader, ChainSender {
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

  /** Another client of the same chain with other per-call timeout / poll interval / rounds. */
  client(options: Pick<InMemoryChainOptions, 'timeoutMs' | 'pollIntervalMs' | 'retryRounds'>): InMemoryChain {
    return new InMemoryChain({ ...this.options, ...options }, this.state);
  }

  /** Receipt reads answered (by any provider), for tests that count them. */
  get receiptReads(): number {
    return this.state.receiptReads;
  }

  /** The block each view call and simulation ran at (undefined: latest), in order. */
  get callBlocks(): ReadonlyArray<{ readonly kind: 'call' | 'simulate'; readonly to: string; readonly block: bigint | undefined }> {
    return this.state.callBlocks;
  }

  /** Raw transactions accepted by broadcast (repeats included). */
  get broadcasts(): number {
    return this.state.broadcasts;
  }

  /** Every transaction the chain has seen (pooled, mined or dropped from view), for tests. */
  transactions(): readonly Tx[] {
    return [...this.state.txs.values()];
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

  /** Calls to `address` pass a simulation (no gas price) and revert once mined. */
  revertOnChainOnly(address: string): this {
    this.state.revertingOnChain.add(address.toLowerCase());
    return this;
  }

  /** View calls to `address` return what `answer` gives for the call data. */
  answerCalls(address: string, answer: (data: string) => string): this {
    this.state.views.set(address.toLowerCase(), answer);
    return this;
  }

  setProvider(url: string, mode: ProviderMode): this {
    this.state.providers.set(url, mode);
    return this;
  }

  /** The next `count` provider calls of any kind fail with a 503 or a rate limit (then the list is tried again). */
  failNextCalls(count: number, mode: 'http-error' | 'rate-limited' = 'http-error'): this {
    this.state.transientFaults = { count, mode };
    return this;
  }

  /** The next `count` broadcasts are refused with a nonce error (as a node out of step would). */
  failNextBroadcasts(count: number): this {
    this.state.nonceErrors = count;
    return this;
  }

  /** Transactions stay pending (no receipt) until `mine()`. */
  holdMining(): this {
    this.state.automine = false;
    return this;
  }

  /** Mines every minable pending transaction, one block each, and resumes automining. */
  mine(): this {
    this.state.automine = true;
    this.mineReady();
    return this;
  }

  /** Forgets the pending transactions: they never get a receipt (dropped from every pool). */
  dropPending(): this {
    for (const tx of this.state.pool.values()) this.state.txs.delete(tx.hash);
    this.state.pool.clear();
    return this;
  }

  // ---- ChainReader ----

  async checkChain(target: ChainTarget): Promise<readonly ProviderCheck[]> {
    return Promise.all(target.rpc.map(async (url, index): Promise<ProviderCheck> => {
      try {
        await this.reach(url, this.timeoutMs, target);
        return { provider: index + 1, status: 'ok', chainId: String(target.chainId) };
      } catch (error) {
        if (!(error instanceof Failure)) throw error;
        return error.servedChainId === undefined
          ? { provider: index + 1, status: 'unavailable' }
          : { provider: index + 1, status: 'chain_mismatch', chainId: String(error.servedChainId) };
      }
    }));
  }

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
    if (!answered && unavailable) throw unavailable;
    return null;
  }

  async transactionKnown(target: ChainTarget, txHash: string): Promise<boolean> {
    checkHash(txHash);
    return this.overProviders(target, async () => this.state.txs.has(txHash.toLowerCase()));
  }

  async balance(target: ChainTarget, address: string): Promise<bigint> {
    checkAddress(address, 'balance');
    return this.overProviders(target, async () => this.state.balances.get(address.toLowerCase()) ?? 0n);
  }

  async blockNumber(target: ChainTarget): Promise<bigint> {
    return this.overProviders(target, async () => BigInt(this.state.blockNumber));
  }

  async nonce(target: ChainTarget, address: string, block: 'latest' | 'pending'): Promise<number> {
    checkAddress(address, 'nonce');
    return this.overProviders(target, async () => {
      const from = address.toLowerCase();
      let n = this.state.mined.get(from) ?? 0;
      if (block === 'pending') while (this.state.pool.has(`${from}:${n}`)) n++;
      return n;
    });
  }

  async fees(target: ChainTarget): Promise<Fees> {
    return this.overProviders(target, async () => ({ kind: 'eip1559', maxFeePerGas: 2n * this.baseFee + this.priorityFee, maxPriorityFeePerGas: this.priorityFee }));
  }

  async call(target: ChainTarget, request: CallRequest): Promise<string> {
    checkCall(request);
    return this.overProviders(target, async () => {
      this.state.callBlocks.push({ kind: 'call', to: request.to.toLowerCase(), block: request.block });
      if (this.state.reverting.has(request.to.toLowerCase())) throw new CallRevertedError('execution reverted (no reason given)');
      return this.state.views.get(request.to.toLowerCase())?.(request.data) ?? '0x';
    });
  }

  async simulate(target: ChainTarget, request: CallRequest): Promise<Simulation> {
    checkCall(request);
    return this.overProviders(target, async (): Promise<Simulation> => {
      this.state.callBlocks.push({ kind: 'simulate', to: request.to.toLowerCase(), block: request.block });
      if (this.state.reverting.has(request.to.toLowerCase())) return { ok: false, revertReason: 'execution reverted (no reason given)' };
      const balance = request.from ? (this.state.balances.get(request.from.toLowerCase()) ?? 0n) : 0n;
      if ((request.valueWei ?? 0n) > balance) return { ok: false, revertReason: 'insufficient funds for transfer' };
      const extra = this.state.revertingOnChain.has(request.to.toLowerCase()) ? REVERT_EXECUTION_GAS : 0n;
      return { ok: true, gasEstimate: gasOf(request.data, extra) };
    });
  }

  // ---- ChainSender ----

  address(signer: string): string {
    const key = normalizeKey(signer);
    const n = BigInt(key);
    if (n === 0n || n >= SECP256K1_ORDER) throw new Error('the signer key is not a valid secp256k1 private key');
    return this.state.signers.get(key) ?? madeUpAddress(key);
  }

  async sign(request: SignRequest): Promise<SignedTransaction> {
    if (!ADDRESS.test(request.to)) throw new Error('sign: the destination is not a 20-byte 0x-hex address');
    if (typeof request.valueWei !== 'bigint' || request.valueWei < 0n) throw new Error('sign: valueWei must be a bigint >= 0');
    if (!HEX_DATA.test(request.data)) throw new Error('sign: data must be 0x-hex bytes');
    const from = this.address(request.signer);
    const body = {
      chainId: request.chainId, from, to: request.to, nonce: request.nonce, value: request.valueWei.toString(), data: request.data,
      gasLimit: request.gasLimit.toString(), fees: feesJson(request.fees),
    };
    const json = JSON.stringify(body);
    const hash = `0x${createHash('sha256').update(json).digest('hex')}`;
    return { raw: `0x${Buffer.from(json).toString('hex')}`, hash, from, nonce: request.nonce };
  }

  async broadcast(target: ChainTarget, signed: SignedTransaction): Promise<void> {
    checkHash(signed.hash);
    if (!HEX_DATA.test(signed.raw)) throw new Error('broadcast: the raw transaction is not 0x-hex');
    const tx = decode(signed.raw);
    return this.overProviders(target, async () => {
      if (tx.chainId !== this.chainId) throw new ChainRejectedError(target.network, 'invalid chain id for signer');
      this.state.broadcasts++;
      if (this.state.txs.has(tx.hash)) return; // already known
      if (this.state.nonceErrors > 0) {
        this.state.nonceErrors--;
        throw new ChainRejectedError(target.network, 'nonce too high', 'nonce_too_high');
      }
      const from = tx.from.toLowerCase();
      if (tx.nonce < (this.state.mined.get(from) ?? 0)) throw new ChainRejectedError(target.network, 'nonce too low', 'nonce_too_low');
      const balance = this.state.balances.get(from) ?? 0n;
      if (balance < tx.valueWei + tx.gasLimit * maxFee(tx.fees) + (this.l1Fee ?? 0n)) {
        throw new ChainRejectedError(target.network, 'insufficient funds for gas * price + value', 'insufficient_funds');
      }
      if (tx.gasLimit < gasOf(tx.data)) throw new ChainRejectedError(target.network, 'intrinsic gas too low');
      const slot = `${from}:${tx.nonce}`;
      const pooled = this.state.pool.get(slot);
      if (pooled) {
        if (!raisedEnough(pooled.fees, tx.fees)) throw new ChainRejectedError(target.network, 'replacement transaction underpriced', 'underpriced');
        this.state.txs.delete(pooled.hash);
      }
      this.state.pool.set(slot, tx);
      this.state.txs.set(tx.hash, tx);
      if (this.state.automine) this.mineReady();
    });
  }

  // ---- internals ----

  private mineReady(): void {
    for (let progressed = true; progressed;) {
      progressed = false;
      for (const [slot, tx] of this.state.pool) {
        const from = tx.from.toLowerCase();
        if (tx.nonce !== (this.state.mined.get(from) ?? 0)) continue;
        this.state.pool.delete(slot);
        this.land(tx);
        progressed = true;
      }
    }
  }

  private land(tx: Tx): void {
    const to = tx.to.toLowerCase();
    const reverts = this.state.reverting.has(to) || this.state.revertingOnChain.has(to);
    const gasUsed = gasOf(tx.data, reverts ? REVERT_EXECUTION_GAS : 0n);
    const price = effectivePrice(tx.fees, this.baseFee);
    const fee = gasUsed * price + (this.l1Fee ?? 0n);
    const from = tx.from.toLowerCase();
    this.state.balances.set(from, (this.state.balances.get(from) ?? 0n) - fee - (reverts ? 0n : tx.valueWei));
    if (!reverts) this.state.balances.set(to, (this.state.balances.get(to) ?? 0n) + tx.valueWei);
    this.state.mined.set(from, tx.nonce + 1);
    this.state.blockNumber += 1;
    tx.receipt = {
      status: !reverts, blockNumber: BigInt(this.state.blockNumber), gasUsed, effectiveGasPrice: price,
      ...(this.l1Fee === undefined ? {} : { l1Fee: this.l1Fee }),
    };
  }

  private receiptBy(target: ChainTarget, txHash: string, deadline: number): Promise<TxReceipt | null> {
    return this.overProviders(target, async () => {
      this.state.receiptReads += 1;
      const receipt = this.state.txs.get(txHash.toLowerCase())?.receipt;
      return receipt ? { ...receipt } : null;
    }, deadline);
  }

  /**
   * The adapter's provider walk: in order, each bounded by the timeout, a failure hands over to the next; the list
   * is walked again (no pause: the fake's faults are counted, not timed) up to `retryRounds` times. Providers on
   * another chain are skipped, and all of them on another chain is ChainMismatchError.
   */
  private async overProviders<T>(target: ChainTarget, work: () => Promise<T>, deadline = Number.POSITIVE_INFINITY): Promise<T> {
    if (target.rpc.length === 0) throw new ChainUnavailableError(target.network, 'no RPC provider configured');
    let failures: string[] = [];
    for (let round = 0; round < (this.options.retryRounds ?? 10); round++) {
      failures = [];
      const served: string[] = [];
      for (const [index, url] of target.rpc.entries()) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          failures.push(`provider ${index + 1}: not tried, time is up`);
          break;
        }
        try {
          await this.reach(url, Math.min(this.timeoutMs, remaining), target);
          return await work();
        } catch (error) {
          if (!(error instanceof Failure)) throw error;
          if (error.servedChainId !== undefined) served.push(String(error.servedChainId));
          failures.push(`provider ${index + 1}: ${error.reason}`);
        }
      }
      if (served.length === target.rpc.length) throw new ChainMismatchError(target.network, target.chainId, served);
      if (deadline - Date.now() <= 0) break;
    }
    throw new ChainUnavailableError(target.network, `no provider answered (${failures.join('; ')})`);
  }

  private async reach(url: string, timeoutMs: number, target: ChainTarget): Promise<void> {
    if (!/^https?:\/\//i.test(url)) throw new Failure('not an http(s) URL');
    const mode = this.state.providers.get(url) ?? 'ok';
    const served = mode === 'other-chain' ? OTHER_CHAIN_ID : this.chainId;
    if ((mode === 'ok' || mode === 'other-chain') && served !== target.chainId) throw new Failure(`serves chain ${served}, not ${target.chainId}`, served);
    const faults = this.state.transientFaults;
    if (faults.count > 0 && mode === 'ok') {
      faults.count--;
      throw new Failure(faults.mode === 'http-error' ? 'HTTP 503' : 'rate limited -32005');
    }
    switch (mode) {
      case 'ok':
      case 'other-chain':
        return;
      case 'refuse':
        throw new Failure('connection refused');
      case 'http-error':
        throw new Failure('HTTP 503');
      case 'rate-limited':
        throw new Failure('rate limited -32005');
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

function maxFee(fees: Fees): bigint {
  return fees.kind === 'legacy' ? fees.gasPrice : fees.maxFeePerGas;
}

function effectivePrice(fees: Fees, baseFee: bigint): bigint {
  if (fees.kind === 'legacy') return fees.gasPrice;
  const price = baseFee + fees.maxPriorityFeePerGas;
  return price < fees.maxFeePerGas ? price : fees.maxFeePerGas;
}

function raisedEnough(previous: Fees, next: Fees): boolean {
  const ten = (v: bigint): bigint => (v * 110n + 99n) / 100n;
  if (previous.kind === 'legacy' || next.kind === 'legacy') return maxFee(next) >= ten(maxFee(previous));
  return next.maxFeePerGas >= ten(previous.maxFeePerGas) && next.maxPriorityFeePerGas >= ten(previous.maxPriorityFeePerGas);
}

function feesJson(fees: Fees): Record<string, string> {
  return fees.kind === 'legacy'
    ? { kind: 'legacy', gasPrice: fees.gasPrice.toString() }
    : { kind: 'eip1559', maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() };
}

function decode(raw: string): Tx {
  const body = JSON.parse(Buffer.from(raw.slice(2), 'hex').toString()) as Record<string, unknown>;
  const fees = body.fees as Record<string, string>;
  return {
    hash: `0x${createHash('sha256').update(Buffer.from(raw.slice(2), 'hex').toString()).digest('hex')}`,
    chainId: Number(body.chainId), from: String(body.from), to: String(body.to), nonce: Number(body.nonce), valueWei: BigInt(String(body.value)),
    data: String(body.data), gasLimit: BigInt(String(body.gasLimit)),
    fees: fees.kind === 'legacy'
      ? { kind: 'legacy', gasPrice: BigInt(fees.gasPrice!) }
      : { kind: 'eip1559', maxFeePerGas: BigInt(fees.maxFeePerGas!), maxPriorityFeePerGas: BigInt(fees.maxPriorityFeePerGas!) },
  };
}

function madeUpAddress(key: string): string {
  return `0x${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

function checkHash(txHash: string): void {
  if (typeof txHash !== 'string' || !TX_HASH.test(txHash)) throw new Error('the transaction hash is not a 32-byte 0x-hex string');
}

function checkAddress(address: string, what: string): void {
  if (typeof address !== 'string' || !ADDRESS.test(address)) throw new Error(`${what}: the address is not a 20-byte 0x-hex address`);
}

function checkCall(request: CallRequest): void {
  checkAddress(request.to, 'call');
  if (request.from !== undefined) checkAddress(request.from, 'call');
  if (!HEX_DATA.test(request.data)) throw new Error('call: data must be 0x-hex bytes');
}

function normalizeKey(signer: string): string {
  if (typeof signer !== 'string' || !PRIVATE_KEY.test(signer)) throw new Error('the signer key is not a 32-byte hex private key');
  return `0x${signer.replace(/^0x/i, '').toLowerCase()}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
