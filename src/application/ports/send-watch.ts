/** A send being watched until it settles: which run journaled it. */
export interface WatchedSend {
  readonly sendId: string;
  readonly runId: string;
}

/**
 * Sends in flight (submitted, not settled) and when each is to be looked at next, in storage. Whoever advances a send
 * (the run waiting for it, or the engine's watcher for sends nobody waits for) holds its lease meanwhile, so two
 * engine processes never replace or settle one send at once. Each method is one atomic step.
 */
export interface SendWatch {
  /** Watches a send (again), due at `dueAt` (epoch ms). */
  watch(send: WatchedSend, dueAt: number): Promise<void>;
  /**
   * Takes the send's lease for `owner` until `leaseUntil`, unless another owner holds a live one; true when taken. A
   * send not watched (its row went with a crash) is watched again, leased.
   */
  lease(send: WatchedSend, owner: string, now: number, leaseUntil: number): Promise<boolean>;
  /** Leases up to `limit` sends due at `now` that no live lease holds, earliest due first. */
  claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<WatchedSend[]>;
  /** Lets the lease go; the send is due again at `dueAt`. */
  release(sendId: string, owner: string, dueAt: number): Promise<void>;
  /** The send settled: no longer watched. */
  unwatch(sendId: string): Promise<void>;
  /** Sends watched now. */
  count(): Promise<number>;
}
export const SendWatch = Symbol('SendWatch');
