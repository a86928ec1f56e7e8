import { InvalidInputError } from './errors';

/**
 * Exact amounts of the native unit. Wei is always a `bigint`; decimals are handled as strings so
 * that no amount ever passes through a JS float.
 */

/** Decimal places of each accepted unit (1 ether = 10^18 wei, 1 gwei = 10^9 wei). */
const UNIT_DECIMALS: Readonly<Record<string, number>> = { wei: 0, gwei: 9, ether: 18 };

/** Decimal places of the native unit shown by {@link formatNative}. */
const NATIVE_DECIMALS = 18;

const INTEGER = /^[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const WITH_UNIT = /^([0-9]+)(?:\.([0-9]+))?\s?(wei|gwei|ether)$/;

/**
 * Parses an amount literal into wei.
 *
 * Accepted forms:
 * - a non-negative integer wei: a `bigint`, a `number` that is a safe integer, or a digit string
 *   (`"200000000000000000"`);
 * - `<decimal> <unit>` with unit `wei`, `gwei` or `ether` (lower case), one optional space or tab between
 *   (`"0.2 ether"`, `"1.5gwei"`, `"12 wei"`). The conversion is exact; a fraction finer than 1 wei is refused.
 *
 * Refused: negatives, exponents (`1e18`), plain decimals without a unit, empty strings, unsafe JS numbers.
 *
 * @param field names the parameter or config path, used in the error.
 * @throws InvalidInputError(field, reason)
 */
export function parseAmount(literal: string | number | bigint, field: string): bigint {
  if (typeof literal === 'bigint') {
    if (literal < 0n) throw new InvalidInputError(field, 'amount must not be negative');
    return literal;
  }
  if (typeof literal === 'number') {
    if (!Number.isSafeInteger(literal)) {
      throw new InvalidInputError(field, "amount is not an exact integer wei; write it as a string, e.g. '<n> wei' or '0.2 ether'");
    }
    if (literal < 0) throw new InvalidInputError(field, 'amount must not be negative');
    return BigInt(literal);
  }
  if (typeof literal !== 'string') {
    throw new InvalidInputError(field, 'amount must be an integer wei or a string like "0.2 ether"');
  }
  const text = literal.trim();
  if (text === '') throw new InvalidInputError(field, 'amount must not be empty');
  if (INTEGER.test(text)) return BigInt(text);
  const match = WITH_UNIT.exec(text);
  if (!match) {
    throw new InvalidInputError(field, "is not an amount: use an integer wei or '<decimal> wei|gwei|ether' (e.g. '0.2 ether')");
  }
  const [, whole, fraction = '', unit] = match;
  const decimals = UNIT_DECIMALS[unit];
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > decimals) {
    throw new InvalidInputError(field, 'has a fraction finer than 1 wei');
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(significant.padEnd(decimals, '0') || '0');
}

/**
 * Renders wei in the native unit for humans, e.g. `0.2 ETH`, `1.234567 ETH`, `0 ETH`.
 *
 * The fraction is truncated (never rounded up) to `maxFractionDigits` and trailing zeros are dropped, so a
 * non-zero amount below the display precision prints as `0 ETH`; pass `Infinity` (or 18 or more) for the
 * exact value. Negative amounts (e.g. a balance delta) print with a leading `-`.
 *
 * @param symbol native unit symbol; default `ETH`.
 * @param maxFractionDigits digits kept after the decimal point; default 6.
 */
export function formatNative(wei: bigint, symbol = 'ETH', maxFractionDigits = 6): string {
  const sign = wei < 0n ? '-' : '';
  const abs = wei < 0n ? -wei : wei;
  const base = 10n ** BigInt(NATIVE_DECIMALS);
  const whole = abs / base;
  const keep = Math.max(0, Math.min(NATIVE_DECIMALS, Math.floor(maxFractionDigits)));
  const fraction = (abs % base).toString().padStart(NATIVE_DECIMALS, '0').slice(0, keep).replace(/0+$/, '');
  const number = fraction ? `${whole}.${fraction}` : `${whole}`;
  return `${number === '0' ? '' : sign}${number} ${symbol}`;
}

/** Renders wei as the decimal string used in JSON and storage (e.g. `"200000000000000000"`). */
export function formatWeiDecimal(wei: bigint): string {
  return wei.toString(10);
}

/** As {@link parseWeiDecimal}, but undefined instead of an error for anything else. */
export function weiDecimalOrUndefined(s: unknown): bigint | undefined {
  return typeof s === 'string' && (INTEGER.test(s) || HEX.test(s)) ? BigInt(s) : undefined;
}

/**
 * Parses a non-negative integer given as a decimal digit string (`"21000"`) or a `0x` hex string
 * (`"0x5208"`), the two forms receipt numbers come in. No sign, no spaces, no unit.
 *
 * @throws InvalidInputError(field, reason)
 */
export function parseWeiDecimal(s: string, field: string): bigint {
  const value = weiDecimalOrUndefined(s);
  if (value !== undefined) return value;
  throw new InvalidInputError(field, 'is not a non-negative integer (decimal digits or 0x-hex)');
}
