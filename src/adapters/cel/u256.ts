import type * as CelJs from '@marcbachmann/cel-js';

/** 2^256 - 1: the largest uint256, the type of every on-chain amount. */
export const MAX_U256 = (1n << 256n) - 1n;
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const DIGITS = /^[0-9]+$/;

/**
 * A CEL `u256` value (CONTRACT 8.8). CEL's own ints stop at int64, while 10 tokens at 18 decimals are already past
 * it; a separate type (not a wider int) keeps int arithmetic as CEL defines it and makes every amount's range checked.
 */
export class U256 {
  readonly #value: bigint;

  constructor(value: bigint) {
    this.#value = value;
  }

  get value(): bigint {
    return this.#value;
  }

  toString(): string {
    return this.#value.toString();
  }
}

/**
 * An expression that failed on an amount: its message is ours, names the operation and its values, and is kept
 * whole (the library's own messages are cut to their first line and stripped of quoted text).
 */
export class AmountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AmountError';
  }
}

function inRange(result: bigint, operation: string): U256 {
  if (result > MAX_U256) throw new AmountError(`u256 overflow: ${operation} is above 2^256-1`);
  if (result < 0n) throw new AmountError(`u256 underflow: ${operation} is below 0`);
  return new U256(result);
}

/** `u256(...)` of a string: decimal digits only (a JSON number beyond 2^53 arrives as its digits). */
function fromText(text: string): U256 {
  const trimmed = text.trim();
  if (trimmed.startsWith('-') && DIGITS.test(trimmed.slice(1))) return inRange(BigInt(trimmed), `u256(${trimmed})`);
  if (!DIGITS.test(trimmed)) throw new AmountError(`u256(): ${JSON.stringify(text.slice(0, 80))} is not a decimal integer`);
  return inRange(BigInt(trimmed), `u256(${trimmed})`);
}

type Operand = U256 | bigint;
const big = (v: Operand): bigint => (v instanceof U256 ? v.value : v);

const ARITHMETIC: Readonly<Record<string, (a: bigint, b: bigint) => bigint>> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '%': (a, b) => a % b,
};
const COMPARISON: Readonly<Record<string, (a: bigint, b: bigint) => boolean>> = {
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function arithmetic(op: string, a: Operand, b: Operand): U256 {
  const [x, y] = [big(a), big(b)];
  const operation = `${x} ${op} ${y}`;
  if ((op === '/' || op === '%') && y === 0n) throw new AmountError(`u256 ${op === '/' ? 'division' : 'modulo'} by zero: ${operation}`);
  return inRange(ARITHMETIC[op]!(x, y), operation);
}

/** `int(u256)` and the message for a digit string past int64: CEL ints stop there, amounts do not. */
export function toInt64(value: bigint, shown: string = value.toString()): bigint {
  if (value > MAX_INT64 || value < MIN_INT64) throw new AmountError(`int(): ${shown} is beyond int64; use u256(...)`);
  return value;
}

/** Registers `u256` on a CEL environment: conversions, arithmetic and comparisons with u256 and int in both orders. */
export function registerU256(env: CelJs.Environment): void {
  env.registerType('u256', { ctor: U256, fields: {} });
  env.registerFunction('u256(string): u256', (s: string) => fromText(s));
  env.registerFunction('u256(int): u256', (i: bigint) => inRange(i, `u256(${i})`));
  env.registerFunction('u256(u256): u256', (u: U256) => u);
  env.registerFunction('int(u256): int', (u: U256) => toInt64(u.value));
  env.registerFunction('string(u256): string', (u: U256) => u.toString());
  for (const op of Object.keys(ARITHMETIC)) {
    for (const [left, right] of [['u256', 'u256'], ['u256', 'int'], ['int', 'u256']]) {
      env.registerOperator(`${left} ${op} ${right}`, (a: Operand, b: Operand) => arithmetic(op, a, b));
    }
  }
  for (const [op, compare] of Object.entries(COMPARISON)) {
    // The library derives `!=` from `==`, and `int == u256` from `u256 == int` (equality is symmetric).
    if (op === '!=') continue;
    const pairs = op === '==' ? [['u256', 'u256'], ['u256', 'int']] : [['u256', 'u256'], ['u256', 'int'], ['int', 'u256']];
    for (const [left, right] of pairs) {
      env.registerOperator(`${left} ${op} ${right}`, (a: Operand, b: Operand) => compare(big(a), big(b)));
    }
  }
}
