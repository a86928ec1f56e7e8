import type { Fees } from '../../domain/chain/fees';
import type { TxReceipt } from '../../domain/chain/tx-receipt';

/** The network a chain call goes to: its name (for messages), chain id, and read providers in order. */
export interface ChainTarget {
  readonly network: string;
  readonly chainId: number;
  /** Provider URLs, tried in order. Secret-typed: never put one in a message or a log. */
  readonly rpc: readonly string[];
}

/** Every provider of a network failed (or timed out). The message names the network, never a URL. */
export class ChainUnavailableError extends Error {
  constructor(readonly network: string, readonly reason: string) {
    super(`${network}: ${reason}`);
    this.name = 'ChainUnavailableError';
  }
}

/**
 * No provider of the network serves its configured chain id (each answered another one, CONTRACT 8.8): nothing
 * may be signed for it. The message names both chain ids, never a URL.
 */
export class ChainMismatchError extends Error {
  constructor(readonly network: string, readonly expected: number, readonly served: readonly string[]) {
    super(`${network}: chain_id ${expected} is configured, but its providers serve chain ${[...new Set(served)].join(', ')}`);
    this.name = 'ChainMismatchError';
  }
}

/**
 * One provider of a network as the chain id check found it (`provider` counts from 1, as in messages: a provider
 * is never named by its URL): it serves the network's chain, another one (`chainId` says which), or gave no answer.
 */
export interface ProviderCheck {
  readonly provider: number;
  readonly status: 'ok' | 'chain_mismatch' | 'unavailable';
  readonly chainId?: string;
}

/** Why a node refused a transaction; `nonce_*` make the send path resync its nonce allocator. */
export type RejectionCode = 'nonce_too_low' | 'nonce_too_high' | 'underpriced' | 'insufficient_funds' | 'rejected';

/**
 * The node refused the transaction itself (insufficient funds, nonce too low, gas estimation reverted, ...):
 * another provider would answer the same, so none is tried, and a retry would fail alike. The message holds
 * the node's reason, scrubbed of URLs and of the signer key.
 */
export class ChainRejectedError extends Error {
  constructor(readonly network: string, readonly reason: string, readonly code: RejectionCode = 'rejected') {
    super(`${network}: transaction rejected: ${reason}`);
    this.name = 'ChainRejectedError';
  }
}

/** A view call reverted; `reason` is decoded (Error(string), Panic(uint256)) or the raw custom error data. */
export class CallRevertedError extends Error {
  constructor(readonly reason: string) {
    super(`call reverted: ${reason}`);
    this.name = 'CallRevertedError';
  }
}

/** A call as a transaction would make it: from, to, value (wei) and call data (0x-hex). */
export interface CallRequest {
  readonly from?: string;
  readonly to: string;
  readonly valueWei?: bigint;
  readonly data: string;
  /**
   * The block the call runs at (its state after that block): a replay session simulates and reads as the chain was
   * at the log's block (CONTRACT 8.6). Absent: the latest block.
   */
  readonly block?: bigint;
}

/** What the chain says a transaction would do now: run (with the gas it would use) or revert (with why). */
export type Simulation =
  | { readonly ok: true; readonly gasEstimate: bigint }
  | { readonly ok: false; readonly revertReason: string };

/**
 * Reads a chain over a network's read providers: tried in order, each call bounded by a timeout; a provider that
 * fails or is rate-limited hands over to the next, the list is tried again with backoff (bounded), and
 * ChainUnavailableError says none answered. Each provider's chain id is checked on its first use: one serving
 * another chain is never used, and ChainMismatchError says every provider does. Malformed input is refused before
 * any provider is asked.
 */
export interface ChainReader {
  /**
   * Compares each provider's `eth_chainId` with the network's chain id (once per provider and process; a provider
   * that did not answer is asked again later). Never throws for a provider's trouble: it is in the answer.
   */
  checkChain(target: ChainTarget): Promise<readonly ProviderCheck[]>;
  /** The receipt of a mined transaction; null when a provider answered that it knows none (not mined). */
  receipt(target: ChainTarget, txHash: string): Promise<TxReceipt | null>;
  /** Polls for the receipt up to `timeoutMs`; null when none arrived in time. */
  waitForReceipt(target: ChainTarget, txHash: string, timeoutMs: number): Promise<TxReceipt | null>;
  /** Whether a provider knows the transaction at all (in its pool or mined). */
  transactionKnown(target: ChainTarget, txHash: string): Promise<boolean>;
  /** The native balance of an address, in wei. */
  balance(target: ChainTarget, address: string): Promise<bigint>;
  /** The latest block number. */
  blockNumber(target: ChainTarget): Promise<bigint>;
  /** Transactions an address has sent: mined (`latest`), or counting those in the pool (`pending`). */
  nonce(target: ChainTarget, address: string, block: 'latest' | 'pending'): Promise<number>;
  /** What a transaction should offer per gas now (EIP-1559 when the chain has a base fee, legacy otherwise). */
  fees(target: ChainTarget): Promise<Fees>;
  /** A view call at `request.block` (default the latest block): the returned data (0x-hex). CallRevertedError when it reverts. */
  call(target: ChainTarget, request: CallRequest): Promise<string>;
  /** Runs the transaction without sending it (eth_call, then eth_estimateGas, at `request.block` or the latest): ok with its gas, or its revert reason. */
  simulate(target: ChainTarget, request: CallRequest): Promise<Simulation>;
}
export const ChainReader = Symbol('ChainReader');

export interface SignRequest {
  readonly chainId: number;
  /** The relayer's signing key (0x-hex private key). Never logged, never in a message. */
  readonly signer: string;
  readonly nonce: number;
  readonly to: string;
  readonly valueWei: bigint;
  /** Call data, 0x-hex. */
  readonly data: string;
  readonly gasLimit: bigint;
  readonly fees: Fees;
}

/** A transaction signed locally: its raw bytes (not a secret) and hash, ready to broadcast any number of times. */
export interface SignedTransaction {
  readonly raw: string;
  readonly hash: string;
  readonly from: string;
  readonly nonce: number;
}

/** Signs with a relayer's key and broadcasts: the only way chainflow moves anything on chain. */
export interface ChainSender {
  /** The address of a signing key (checksummed). */
  address(signer: string): string;
  /** Signs locally; no provider is asked. */
  sign(request: SignRequest): Promise<SignedTransaction>;
  /**
   * Sends signed bytes to the providers in order until one takes them. A node that already holds them (or an
   * earlier provider delivered them and only its answer was lost) counts as taken. ChainRejectedError when a
   * node refuses them; ChainUnavailableError when no provider answered (they may still have reached the network);
   * ChainMismatchError when every provider serves another chain.
   */
  broadcast(target: ChainTarget, signed: SignedTransaction): Promise<void>;
}
export const ChainSender = Symbol('ChainSender');
