import { prng } from '../../../src/application/journal/sample-journal';
import { AMOUNT_COLUMNS, fromLimbs, LIMB_COLUMNS, LIMBS, toLimbs } from '../../../src/adapters/knex/spend-limbs';

const MAX = (1n << 256n) - 1n;

/** A random amount below 2^bits (bits <= 256), from a seeded PRNG. */
function randomAmount(rand: () => number, bits: number): bigint {
  let v = 0n;
  for (let i = 0; i < bits; i += 16) v = (v << 16n) | BigInt(Math.floor(rand() * 65536));
  return v & ((1n << BigInt(bits)) - 1n);
}

describe('spend limbs', () => {
  it.each([
    ['0', 0n], ['1', 1n], ['2^32-1', (1n << 32n) - 1n], ['2^32', 1n << 32n], ['2^64+5', (1n << 64n) + 5n],
    ['2^255', 1n << 255n], ['2^256-1', MAX],
  ])('round-trips %s', (_name, amount) => {
    const limbs = toLimbs(amount);
    expect(limbs).toHaveLength(LIMBS);
    for (const limb of limbs) {
      expect(Number.isInteger(limb)).toBe(true);
      expect(limb).toBeGreaterThanOrEqual(0);
      expect(limb).toBeLessThan(2 ** 32);
    }
    expect(fromLimbs(limbs)).toBe(amount);
    expect(fromLimbs(limbs.map(String))).toBe(amount);
    expect(fromLimbs(limbs.map(BigInt))).toBe(amount);
  });

  it('puts the low 32 bits in the first limb', () => {
    expect(toLimbs((1n << 64n) + 5n)).toEqual([5, 0, 1, 0, 0, 0, 0, 0]);
    expect(toLimbs(MAX)).toEqual(new Array(LIMBS).fill(2 ** 32 - 1));
  });

  it('refuses amounts outside uint256', () => {
    expect(() => toLimbs(MAX + 1n)).toThrow(RangeError);
    expect(() => toLimbs(1n << 300n)).toThrow(RangeError);
    expect(() => toLimbs(-1n)).toThrow(RangeError);
    expect(() => toLimbs(-(1n << 100n))).toThrow(RangeError);
  });

  it('reads missing limb sums (SQL NULL) as zero', () => {
    expect(fromLimbs([null, null, null, null, null, null, null, null])).toBe(0n);
    expect(fromLimbs(['7', null, '1', null, null, null, null, null])).toBe(7n + (1n << 64n));
  });

  it('sums uncarried limbs of many amounts to the exact BigInt sum', () => {
    const rand = prng(20260301);
    const amounts: bigint[] = [MAX, MAX, MAX, (1n << 255n) + 1n, (1n << 64n) + 5n, 0n, 1n];
    for (let i = 0; i < 5000; i++) amounts.push(randomAmount(rand, [8, 32, 64, 65, 128, 200, 255, 256][i % 8]!));
    const expected = amounts.reduce((a, b) => a + b, 0n);
    // Limb sums as SQL keeps them (64-bit integers, read back as TEXT): no carry between limbs.
    const sums = new Array<bigint>(LIMBS).fill(0n);
    for (const amount of amounts) toLimbs(amount).forEach((limb, i) => { sums[i] = sums[i]! + BigInt(limb); });
    for (const s of sums) expect(s < (1n << 63n)).toBe(true);
    expect(expected > MAX).toBe(true);
    expect(fromLimbs(sums.map(String))).toBe(expected);
    expect(fromLimbs(sums)).toBe(expected);
    // The sum of a float or a 64-bit integer would be wrong: the limbs are what keeps it exact.
    expect(BigInt.asUintN(64, expected)).not.toBe(expected);
  });

  it('names eight columns per amount, each amount its own prefix', () => {
    expect(AMOUNT_COLUMNS.gas).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7']);
    expect(AMOUNT_COLUMNS.value).toHaveLength(LIMBS);
    expect(AMOUNT_COLUMNS.reverted).toHaveLength(LIMBS);
    expect(new Set(LIMB_COLUMNS).size).toBe(3 * LIMBS);
  });
});
