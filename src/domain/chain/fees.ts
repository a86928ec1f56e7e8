/**
 * What a transaction offers per gas: EIP-1559 (a fee cap and a priority tip) or a legacy gas price. Wei, exact.
 */
export type Fees =
  | { readonly kind: 'eip1559'; readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint }
  | { readonly kind: 'legacy'; readonly gasPrice: bigint };

/** A replacement raises both fee fields by 12.5% (nodes want at least 10% more to replace at the same nonce). */
export const REPLACEMENT_BUMP_PERMILLE = 125n;

/** Never more than `cap` per gas (networks.<n>.max_fee_per_gas); the tip never exceeds the fee cap. */
export function capFees(fees: Fees, cap: bigint | undefined): Fees {
  if (cap === undefined) return fees;
  if (fees.kind === 'legacy') return { kind: 'legacy', gasPrice: min(fees.gasPrice, cap) };
  const maxFeePerGas = min(fees.maxFeePerGas, cap);
  return { kind: 'eip1559', maxFeePerGas, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, maxFeePerGas) };
}

/**
 * The fees of a replacement of a transaction that offered `previous`: each field raised by 12.5% (rounded up), or the
 * market's when that is higher, then capped. Undefined when the cap leaves less than the full 12.5% raise of both
 * fields: a smaller raise is refused by nodes ("replacement underpriced"), so signing it would only add a hash.
 */
export function bumpFees(previous: Fees, market: Fees, cap: bigint | undefined): Fees | undefined {
  let next: Fees;
  if (previous.kind === 'legacy') {
    const marketPrice = market.kind === 'legacy' ? market.gasPrice : market.maxFeePerGas;
    next = { kind: 'legacy', gasPrice: max(up(previous.gasPrice), marketPrice) };
  } else {
    const m = market.kind === 'eip1559' ? market : { maxFeePerGas: market.gasPrice, maxPriorityFeePerGas: market.gasPrice };
    next = {
      kind: 'eip1559',
      maxFeePerGas: max(up(previous.maxFeePerGas), m.maxFeePerGas),
      maxPriorityFeePerGas: max(up(previous.maxPriorityFeePerGas), m.maxPriorityFeePerGas),
    };
  }
  const capped = capFees(next, cap);
  return raisesAll(previous, capped) ? capped : undefined;
}

/** The most a transaction with these fees and gas limit can pay for gas. */
export function maxGasCost(fees: Fees, gasLimit: bigint): bigint {
  return gasLimit * (fees.kind === 'legacy' ? fees.gasPrice : fees.maxFeePerGas);
}

const up = (v: bigint): bigint => (v * (1000n + REPLACEMENT_BUMP_PERMILLE) + 999n) / 1000n;

function raisesAll(previous: Fees, next: Fees): boolean {
  if (previous.kind === 'legacy' && next.kind === 'legacy') return next.gasPrice >= up(previous.gasPrice) && next.gasPrice > previous.gasPrice;
  if (previous.kind === 'eip1559' && next.kind === 'eip1559') {
    return next.maxFeePerGas >= up(previous.maxFeePerGas) && next.maxFeePerGas > previous.maxFeePerGas
      && next.maxPriorityFeePerGas >= up(previous.maxPriorityFeePerGas) && next.maxPriorityFeePerGas > previous.maxPriorityFeePerGas;
  }
  return false;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
