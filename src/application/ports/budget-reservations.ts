/**
 * One amount a send asks of one value cap: native value (no `token`) or a token's base units (`token`: the token
 * contract, lowercase 0x-hex).
 */
export interface ReservationClaim {
  readonly budget: string;
  readonly token?: string;
  readonly amount: bigint;
  /** Start of the budget's window (epoch ms): token reservations older than this count no more. */
  readonly since: number;
  /** Native claims: the ledger's value recorded since `since` by these workflows (and relayers; absent: all) counts too. */
  readonly ledger?: { readonly workflows: readonly string[]; readonly relayers?: readonly string[] };
}

/**
 * Reservations of the value caps (max_native_value, max_token_value), decided in storage. A native reservation
 * counts while its send is in flight (until the send's settle hands its value to the ledger); a token reservation
 * counts over its budget's window unless its send ended without landing. A reservation whose send was never
 * journaled (its process died between the reservation and `send.queued`) counts for RESERVATION_UNJOURNALED_MS.
 */
export interface BudgetReservations {
  /**
   * One atomic step, across processes: reads what counts against each claim now (other sends' reservations, the
   * ledger), asks `decide` with those amounts (one per claim, in order, this send's own amount not included), and,
   * when it answers true, reserves every claim for `sendId` (replacing what `sendId` held). Nobody else reserves
   * or settles in between. Resolves to what `decide` answered. An adapter may ask `decide` again (having read
   * again); its last answer is the one that counts, so `decide` must keep no state but the last call's.
   */
  reserve(sendId: string, at: number, claims: readonly ReservationClaim[], decide: (counted: readonly bigint[]) => boolean): Promise<boolean>;
  /** The send ended without broadcasting: its reservations count no more. */
  release(sendId: string): Promise<void>;
}
export const BudgetReservations = Symbol('BudgetReservations');

/** As the nonce allocator's stale reservation: a send not journaled this long after its reservation was abandoned. */
export const RESERVATION_UNJOURNALED_MS = 60_000;
