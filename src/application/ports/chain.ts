import type { Receipt } from '../../domain/journal/journal-event';

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
 * Reads one transaction receipt over a network's read providers: tried in order, each call bounded by a
 * timeout. Resolves null when a provider answered that it knows no receipt (not mined). Rejects with
 * ChainUnavailableError when no provider answered.
 *
 * The receipt's numbers are decimal strings (`gasUsed`, `effectiveGasPrice`, `gasPrice`, `l1Fee` when
 * the node reports one); `status` is 1 (success) or 0 (reverted); `blockNumber` a decimal string.
 */
export interface ChainReceiptReader {
  read(target: ChainTarget, txHash: string): Promise<Receipt | null>;
}
export const ChainReceiptReader = Symbol('ChainReceiptReader');

export interface BroadcastRequest {
  readonly target: ChainTarget;
  /** The relayer's signing key (0x-hex private key). Never logged, never in a message. */
  readonly signer: string;
  readonly to: string;
  readonly valueWei: bigint;
  /** Call data, 0x-hex. */
  readonly data?: string;
  /** Gas limit; estimated by the node when absent. */
  readonly gasLimit?: bigint;
}

export interface Broadcast {
  readonly txHash: string;
  readonly from: string;
  readonly nonce: number;
}

/** Signs with a relayer's key and broadcasts: the only way chainflow moves anything on chain. */
export interface ChainSender {
  broadcast(request: BroadcastRequest): Promise<Broadcast>;
  /** Polls for the receipt up to `timeoutMs`; null when none arrived in time. Same receipt shape as the reader. */
  waitForReceipt(target: ChainTarget, txHash: string, timeoutMs: number): Promise<Receipt | null>;
  /** The native balance of an address, in wei. */
  balance(target: ChainTarget, address: string): Promise<bigint>;
}
export const ChainSender = Symbol('ChainSender');

/**
 * Derives the address of a relayer's signer credential locally (no provider is asked): what the relayer's
 * transactions are sent from. Rejects with a message that never holds the credential when it is not a usable key.
 */
export interface SignerAddresses {
  addressOf(signer: string): Promise<string>;
}
export const SignerAddresses = Symbol('SignerAddresses');
