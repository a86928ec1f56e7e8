/** A CEL expression that could not be parsed or evaluated; the message never holds context values. */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/**
 * The expression language of workflow definitions (CEL). Values cross as JSON-like data: integers of the context
 * are CEL ints; results come back as JSON values (ints as numbers when safe, else decimal strings).
 */
export interface Expressions {
  /** Why `source` does not parse, or undefined when it does. */
  check(source: string): string | undefined;
  /** @throws ExpressionError */
  evaluate(source: string, context: Readonly<Record<string, unknown>>): unknown;
}
export const Expressions = Symbol('Expressions');
