/**
 * Exact sums of uint256 amounts in SQL. SQLite sums 64-bit integers exactly (and refuses to overflow), but
 * a uint256 does not fit one, and TEXT or REAL sums are floats. So a rollup keeps each amount as eight
 * 32-bit limbs, amount = Σ limb[i] · 2^(32·i), and sums limbs without carrying: a limb sum stays below
 * 2^63 for up to 2^31 entries. Sums are read back as TEXT (exact) and recombined with BigInt.
 */
export const LIMBS = 8;
const LIMB_BITS = 32n;
const LIMB_MASK = (1n << LIMB_BITS) - 1n;
const LIMB_SIZE = 2 ** 32;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The amounts a rollup row keeps: gas spend, value moved, gas spend of reverted sends. */
export const AMOUNTS = { gas: 'g', value: 'v', reverted: 'r' } as const;
export type AmountName = keyof typeof AMOUNTS;

const columnsOf = (prefix: string): string[] => Array.from({ length: LIMBS }, (_, i) => `${prefix}${i}`);
export const AMOUNT_COLUMNS: Readonly<Record<AmountName, readonly string[]>> = {
  gas: columnsOf(AMOUNTS.gas), value: columnsOf(AMOUNTS.value), reverted: columnsOf(AMOUNTS.reverted),
};
export const LIMB_COLUMNS: readonly string[] = [...AMOUNT_COLUMNS.gas, ...AMOUNT_COLUMNS.value, ...AMOUNT_COLUMNS.reverted];

/** The limbs of a non-negative amount below 2^256 (numbers: each limb is below 2^32). */
export function toLimbs(amount: bigint): number[] {
  if (amount < 0n || amount >> (LIMB_BITS * BigInt(LIMBS)) !== 0n) throw new RangeError('amount outside uint256');
  const out = new Array<number>(LIMBS).fill(0);
  // Most amounts fit 53 bits: split them with number arithmetic, no BigInt per limb.
  if (amount <= SAFE) {
    const n = Number(amount);
    out[0] = n % LIMB_SIZE;
    out[1] = Math.floor(n / LIMB_SIZE);
    return out;
  }
  let rest = amount;
  for (let i = 0; i < LIMBS; i++) {
    out[i] = Number(rest & LIMB_MASK);
    rest >>= LIMB_BITS;
  }
  return out;
}

/** Recombines (possibly uncarried) limb sums, each a decimal string, number or bigint. */
export function fromLimbs(limbs: readonly (string | number | bigint | null)[]): bigint {
  let total = 0n;
  for (let i = limbs.length - 1; i >= 0; i--) total = (total << LIMB_BITS) + BigInt(limbs[i] ?? 0);
  return total;
}
