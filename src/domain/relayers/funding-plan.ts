/**
 * A relayer's funding plan (CONTRACT 9): is it low, what will it burn, what must be added. Pure and exact:
 * every amount is a bigint of wei.
 */

const DAY_MS = 86_400_000;

/** The ledger's gas spend of this window back from now is the relayer's recent burn. */
export const RECENT_SPEND_WINDOW_MS = 7 * DAY_MS;
/** The burn is projected over this horizon ahead. */
export const FUNDING_HORIZON_MS = 7 * DAY_MS;
/**
 * Shortest span a burn rate is taken over. A relayer whose first send in the window is recent has its rate taken
 * over the time since that send, so that a relayer put to work yesterday is not planned as if it had idled for
 * six days; but never over less than a day, so that one send a minute ago is not projected as thousands.
 */
export const MIN_RATE_SPAN_MS = DAY_MS;

export interface FundingInput {
  /** The live balance; null when it could not be read. */
  readonly balanceWei: bigint | null;
  /** `relayers.<r>.low_balance`; null when none is configured. */
  readonly thresholdWei: bigint | null;
  /** Gas spend recorded in the last RECENT_SPEND_WINDOW_MS. */
  readonly recentGasWei: bigint;
  /** How long ago (ms) the oldest ledger entry of that window was recorded; null when there is none. */
  readonly oldestAgoMs: number | null;
}

export interface FundingPlan {
  /** Balance below the threshold; false without a threshold; null when the balance is unknown. */
  readonly lowBalance: boolean | null;
  /** The recent burn projected over FUNDING_HORIZON_MS, rounded up to the wei. */
  readonly estimateWei: bigint;
  /** What to add so that the balance covers the estimate plus the threshold; 0 when covered; null when the balance is unknown. */
  readonly shortfallWei: bigint | null;
}

/**
 * The recent burn projected over the horizon: `recentGasWei / span × horizon`, where the span is the time since
 * the oldest entry of the window, at least MIN_RATE_SPAN_MS and at most the window. Rounded up.
 */
export function projectBurn(recentGasWei: bigint, oldestAgoMs: number | null): bigint {
  if (recentGasWei < 0n) throw new RangeError('recent gas spend must not be negative');
  if (recentGasWei === 0n) return 0n;
  const span = BigInt(Math.min(RECENT_SPEND_WINDOW_MS, Math.max(MIN_RATE_SPAN_MS, Math.ceil(oldestAgoMs ?? RECENT_SPEND_WINDOW_MS))));
  const scaled = recentGasWei * BigInt(FUNDING_HORIZON_MS);
  return (scaled + span - 1n) / span;
}

export function fundingPlan(input: FundingInput): FundingPlan {
  const estimateWei = projectBurn(input.recentGasWei, input.oldestAgoMs);
  const threshold = input.thresholdWei ?? 0n;
  if (threshold < 0n) throw new RangeError('low-balance threshold must not be negative');
  if (input.balanceWei === null) return { lowBalance: null, estimateWei, shortfallWei: null };
  const need = estimateWei + threshold;
  return {
    lowBalance: input.thresholdWei !== null && input.balanceWei < input.thresholdWei,
    estimateWei,
    shortfallWei: need > input.balanceWei ? need - input.balanceWei : 0n,
  };
}
