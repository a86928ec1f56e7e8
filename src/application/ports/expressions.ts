/** A CEL expression that could not be parsed or evaluated; the message never holds context values. */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/** What an expression may name where it stands in a workflow (CONTRACT 8.1). */
export interface ExpressionScope {
  /** Ids of the steps that finish before it: `steps.<id>` may name only these. */
  readonly steps: readonly string[];
  /** Ids of the workflow's steps that run after it, named as such when an expression reads one. */
  readonly laterSteps?: readonly string[];
  /** `reorg` is in the context (an `on_reorg` step, CONTRACT 8.6). */
  readonly reorg?: boolean;
  /** `log` is in the context (a `wait_event` step's `where`, CONTRACT 8.6). */
  readonly log?: boolean;
  /** The expression is an `if` or a condition: its value must be a bool. */
  readonly bool?: boolean;
}

/**
 * The expression language of workflow definitions (CEL). Values cross as JSON-like data: integers of the context
 * are CEL ints; results come back as JSON values (ints as numbers when safe, else decimal strings).
 */
export interface Expressions {
  /**
   * Why `source` would fail whatever the run (it does not parse, or does not type-check against the context:
   * `1 + "a"`, a step it may not read), or undefined when it may run. Without `scope`, every variable is dyn.
   */
  check(source: string, scope?: ExpressionScope): string | undefined;
  /** @throws ExpressionError */
  evaluate(source: string, context: Readonly<Record<string, unknown>>): unknown;
}
export const Expressions = Symbol('Expressions');
