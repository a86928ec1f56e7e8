import type * as CelJs from '@marcbachmann/cel-js';
import { ExpressionError, type Expressions, type ExpressionScope } from '../../application/ports/expressions';
import { stepReferenceProblem } from './step-references';
import { AmountError, registerU256, toInt64, U256 } from './u256';

/**
 * The CEL library, loaded on first use: every command loads the config reader (which holds a CelExpressions),
 * but only configs with expressions and the engine use it, and loading it costs a cold `chainflow history` ~7 ms.
 */
let library: typeof CelJs | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cel = (): typeof CelJs => (library ??= require('@marcbachmann/cel-js') as typeof CelJs);

/** The environment every expression runs in: CEL as the library defines it (variables dyn), plus `u256`. */
let environment: CelJs.Environment | undefined;
function env(): CelJs.Environment {
  if (!environment) {
    environment = new (cel().Environment)({ unlistedVariablesAreDyn: true });
    registerU256(environment);
  }
  return environment;
}

/**
 * Where an expression is checked at config load: the same CEL and `u256`, but only the context's variables exist
 * (CONTRACT 8.1), so a misspelt `trigegr` is refused rather than read as an unknown dyn at run time. `steps` is
 * a map whose keys are checked apart (stepReferenceProblem): one environment serves every position in a workflow.
 */
const checkEnvironments = new Map<string, CelJs.Environment>();
/** `log`: the decoded log a `wait_event` step's `where` looks at (CONTRACT 8.6). */
function checkEnv(reorg: boolean, log: boolean): CelJs.Environment {
  const key = `${reorg}:${log}`;
  let environment = checkEnvironments.get(key);
  if (!environment) {
    environment = new (cel().Environment)({ unlistedVariablesAreDyn: false });
    registerU256(environment);
    environment.registerType('StepResult', { fields: { status: 'string', output: 'dyn' } });
    environment.registerVariable('trigger', 'dyn');
    environment.registerVariable('steps', 'map<string, StepResult>');
    environment.registerVariable({ name: 'run', schema: { id: 'string', workflow: 'string', session: 'string' } });
    environment.registerVariable('relayers', 'map<string, dyn>');
    if (reorg) environment.registerVariable({ name: 'reorg', schema: { run_id: 'string', depth: 'int', block: 'int', removed_block_hash: 'string' } });
    if (log) environment.registerVariable('log', 'dyn');
    checkEnvironments.set(key, environment);
  }
  return environment;
}

type Program = ReturnType<CelJs.Environment['parse']>;

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

/** CEL values → JSON: ints as numbers when exact, else decimal strings; u256 always as its decimal string. */
function fromCel(value: unknown): unknown {
  if (value instanceof U256) return value.toString();
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

/** An AST node of the library, as far as a failed `int(...)` needs it. */
interface CallNode {
  readonly op?: string;
  readonly args?: readonly unknown[];
}

/**
 * The library's `int(string)` refuses a digit string past int64 with "cannot convert to int" (it cannot be
 * overridden), which tells a payout of 10 tokens nothing. Its argument is evaluated again (it evaluated
 * without error a moment ago) to say what was wrong and what to use instead.
 */
function intBeyondInt64(err: unknown, source: string, context: Record<string, unknown>): AmountError | undefined {
  const node = (err as { code?: string; node?: CallNode }).node;
  if ((err as { code?: string }).code !== 'int_conversion_error' || node?.op !== 'call' || node.args?.[0] !== 'int') return undefined;
  const arg = (node.args[1] as readonly { start: number; end: number }[] | undefined)?.[0];
  if (!arg) return undefined;
  let value: unknown;
  try {
    value = env().evaluate(source.slice(arg.start, arg.end), context);
  } catch {
    return undefined;
  }
  if (typeof value !== 'string' || !/^-?[0-9]+$/.test(value.trim())) return undefined;
  try {
    toInt64(BigInt(value.trim()));
  } catch (amount) {
    return amount as AmountError;
  }
  return undefined;
}

/** CEL through @marcbachmann/cel-js (no eval, no home-made parser), with `u256`; parsed expressions are cached. */
export class CelExpressions implements Expressions {
  private readonly compiled = new Map<string, Program>();

  check(source: string, scope?: ExpressionScope): string | undefined {
    let program: Program;
    try {
      program = scope ? checkEnv(scope.reorg === true, scope.log === true).parse(source) : this.program(source);
    } catch (err) {
      return firstLine(err);
    }
    const typed = program.check();
    if (!typed.valid) return firstLine(typed.error);
    if (!scope) return undefined;
    if (scope.bool && typed.type !== 'bool' && typed.type !== 'dyn') return `must be a bool, not ${typed.type}`;
    return stepReferenceProblem(program.ast, scope);
  }

  evaluate(source: string, context: Readonly<Record<string, unknown>>): unknown {
    let program;
    try {
      program = this.program(source);
    } catch (err) {
      throw new ExpressionError(firstLine(err));
    }
    const values = toCel(context) as Record<string, unknown>;
    try {
      return fromCel(program(values));
    } catch (err) {
      if (err instanceof AmountError) throw new ExpressionError(err.message);
      const beyond = intBeyondInt64(err, source, values);
      throw new ExpressionError(beyond ? beyond.message : firstLine(err));
    }
  }

  private program(source: string): Program {
    let program = this.compiled.get(source);
    if (!program) {
      program = env().parse(source);
      this.compiled.set(source, program);
    }
    return program;
  }
}

/** Evaluate once without a cache (tests, one-off checks). */
export const evaluateCel = (source: string, context: Record<string, unknown>): unknown => new CelExpressions().evaluate(source, context);
