import type { Fees } from '../../domain/chain/fees';

/** A relayer's nonces on one network: one counter in storage, shared by every engine process. */
export interface NonceLane {
  readonly relayer: string;
  readonly network: string;
}

/** Why a transaction of a send was signed: the send itself, a fee-raised replacement, or the zero-value cancel. */
export type SignedPurpose = 'send' | 'replacement' | 'cancel';

/** A transaction signed for a send, kept so that exactly these bytes can be broadcast again after a crash. */
export interface SignedRecord {
  readonly txHash: string;
  readonly sendId: string;
  readonly nonce: number;
  readonly purpose: SignedPurpose;
  /** The raw signed transaction (0x-hex). Not a secret: anyone may broadcast it, and it can only do what was signed. */
  readonly raw: string;
  readonly from: string;
  readonly to: string;
  readonly valueWei: bigint;
  /** Call data, 0x-hex. */
  readonly data: string;
  readonly gasLimit: bigint;
  readonly fees: Fees;
  /** Epoch ms. */
  readonly signedAt: number;
}

/**
 * Nonces of relayers (CONTRACT 8.5), kept in storage so that ordering and exclusivity hold across processes: each
 * method is one atomic step. A send holds one nonce for good once a transaction of it is signed at that nonce; a
 * nonce reserved and never signed (its send failed before signing, or its process died) goes back to the lane.
 */
export interface NonceAllocator {
  /** Whether the lane was ever synced with the chain (a relayer's first use syncs it). */
  synced(lane: NonceLane): Promise<boolean>;
  /**
   * Syncs the lane with the chain's pending nonce (first use, and after a nonce error): the next fresh nonce becomes
   * at least `chainPending` (never lower: nonces handed out are never handed out again), and free nonces below it,
   * used on chain meanwhile, are forgotten. `chainPending` raises the lane's floor: no nonce below the floor is ever
   * handed out or freed again.
   */
  sync(lane: NonceLane, chainPending: number, now: number): Promise<void>;
  /**
   * The nonce `sendId` holds; the first call takes one: the lowest free nonce of the lane (given back, or reserved
   * and left unsigned for longer than `staleMs`), else the lane's next. The lane must be synced first.
   */
  reserve(lane: NonceLane, sendId: string, now: number, staleMs: number): Promise<number>;
  /**
   * Records a signed transaction of the send at the nonce it holds; from then on that nonce is the send's. Throws
   * when the send no longer holds that nonce (nothing is recorded then, and nothing must be broadcast).
   */
  recordSigned(lane: NonceLane, record: SignedRecord): Promise<void>;
  /**
   * The send will never be (or never was) broadcast: its nonce goes back to the lane for the next send, unless it is
   * below the lane's floor (the chain used it): then it is forgotten.
   */
  giveBack(sendId: string): Promise<void>;
  /** The transactions signed for a send, oldest first. */
  signed(sendId: string): Promise<SignedRecord[]>;
  /**
   * Holes of the lane: free nonces (at or above its floor) below a nonce some send holds. Until a transaction takes
   * each, the chain includes nothing of the relayer past it. Lowest first.
   */
  holes(lane: NonceLane): Promise<number[]>;
  /** Takes `nonce` for `holderId` if it is free now (a hole, for its gap-filling cancel); true when taken. */
  claim(lane: NonceLane, nonce: number, holderId: string, now: number): Promise<boolean>;
}
export const NonceAllocator = Symbol('NonceAllocator');
