import type * as CelJs from '@marcbachmann/cel-js';
import { ExpressionError, type Expressions } from '../../application/ports/expressions';

/**
 * The CEL library, loaded on first use: every command loads the config reader (which holds a CelExpressions),
 * but only configs with expressions and the engine use it, and loading it costs a cold `chainflow history` ~7 ms.
 */
let library: typeof CelJs | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cel = (): typeof CelJs => (library ??= require('@marcbachmann/cel-js') as typeof CelJs);

/** First line of a CEL library message (the rest is a source excerpt), without the values it may quote. */
function firstLine(err: unknown): string {
  // The library quotes what it tripped on (`Unexpected character: 'x'`): a piece of the config, so it is left out.
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/:?\s*(['"`]).*?\1/g, '').trim();
}

/** JSON-like context → CEL values: integers become CEL ints (bigint), other numbers doubles. */
function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  return value;
}

/** CEL values → JSON: ints as numbers when exact, else decimal strings. */
function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCel(v)]));
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromCel(v)]));
  }
  if (value && typeof value === 'object' && 'valueOf' in value && typeof (value as { valueOf(): unknown }).valueOf() === 'bigint') {
    return fromCel((value as { valueOf(): unknown }).valueOf());
  }
  return value;
}

/** CEL through @marcbachmann/cel-js (no eval, no home-made parser); parsed expressions are cached. */
export class CelExpressions implements Expressions {
  private readonly compiled = new Map<string, ReturnType<typeof CelJs.parse>>();

  check(source: string): string | undefined {
    try {
      this.program(source);
      return undefined;
    } catch (err) {
      return firstLine(err);
    }
  }

  evaluate(source: string, context: Readonly<Record<string, unknown>>): unknown {
    let program;
    try {
      program = this.program(source);
    } catch (err) {
      throw new ExpressionError(firstLine(err));
    }
    try {
      return fromCel(program(toCel(context) as Record<string, unknown>));
    } catch (err) {
      throw new ExpressionError(firstLine(err));
    }
  }

  private program(source: string): ReturnType<typeof CelJs.parse> {
    let program = this.compiled.get(source);
    if (!program) {
      program = cel().parse(source);
      this.compiled.set(source, program);
    }
    return program;
  }
}

/** Evaluate once without a cache (tests, one-off checks). */
export const evaluateCel = (source: string, context: Record<string, unknown>): unknown => fromCel(cel().evaluate(source, toCel(context) as Record<string, unknown>));
