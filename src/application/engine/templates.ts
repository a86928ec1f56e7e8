import type { Json } from '../../domain/journal/journal-event';
import { ExpressionError, type Expressions } from '../ports/expressions';

/** `${{ expr }}` in a string (CONTRACT 8.1). */
const TEMPLATE = /\$\{\{([\s\S]*?)\}\}/g;

/** The CEL expressions inside a template string, in order (for checks at load). */
export function templateExpressions(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((m) => m[1]!.trim());
}

/** A rendered value inside a string: strings as they are, other values as JSON. */
function inline(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** Renders every `${{ expr }}` of `text`. @throws ExpressionError */
export function renderString(text: string, expressions: Expressions, context: Readonly<Record<string, unknown>>): string {
  if (!text.includes('${{')) return text;
  return text.replace(TEMPLATE, (_, source: string) => inline(expressions.evaluate(source.trim(), context)));
}

/** Renders every string of a JSON tree (keys stay as they are). @throws ExpressionError */
export function renderTree(value: Json, expressions: Expressions, context: Readonly<Record<string, unknown>>): Json {
  if (typeof value === 'string') return renderString(value, expressions, context);
  if (Array.isArray(value)) return value.map((v) => renderTree(v, expressions, context));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderTree(v, expressions, context)]));
  }
  return value;
}

/** Evaluates a condition or an `if`: it must be a bool. @throws ExpressionError */
export function evaluateBool(source: string, expressions: Expressions, context: Readonly<Record<string, unknown>>): boolean {
  const value = expressions.evaluate(source, context);
  if (typeof value !== 'boolean') throw new ExpressionError(`expression must be a bool, got ${value === null ? 'null' : typeof value}`);
  return value;
}
