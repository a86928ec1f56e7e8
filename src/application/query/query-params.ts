import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { MAX_KEY_CURSOR } from '../../domain/cursor';
import { parseDuration } from '../../domain/duration';
import { InvalidInputError } from '../../domain/errors';
import { ID_PATTERN } from '../../domain/ids';
import { parseRfc3339 } from '../../domain/time';

/** How one query parameter is spelled and what it means; one spec gives the JSON Schema and the parser. */
export type ParamSpec =
  | { readonly kind: 'text'; readonly description: string }
  | { readonly kind: 'id'; readonly description: string }
  | { readonly kind: 'enum'; readonly values: readonly string[]; readonly description: string }
  | { readonly kind: 'int'; readonly description: string }
  | { readonly kind: 'time'; readonly description: string }
  | { readonly kind: 'limit'; readonly min: number; readonly max: number; readonly default: number; readonly description: string }
  | { readonly kind: 'cursor'; readonly description: string };

/** A parameter that must be given (none of the list parameters are; `diff`'s `a` and `b` are). */
export type RequiredParam = ParamSpec & { readonly required: true };

export type ParamSpecs = Readonly<Record<string, ParamSpec | RequiredParam>>;

/** Parsed values: strings, numbers (int, limit) and epoch ms (time). */
export type ParsedParams = Record<string, string | number | undefined>;

/**
 * An empty object without a prototype: a parameter named `__proto__` is then an own key like any other (on a
 * plain object, assigning it replaces the prototype and the parameter vanishes or turns into others).
 */
export function bareObject<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Parameter names are shown in errors only when they look like names (never a long or odd string). */
const SHOWN_NAME = /^[A-Za-z0-9_.[\]-]{1,64}$/;

/** The error for a parameter that `specs` do not declare, naming it and the known ones. */
export function unknownParameter(name: string, specs: ParamSpecs): InvalidInputError {
  const known = Object.keys(specs);
  const shown = SHOWN_NAME.test(name) ? name : 'query';
  return new InvalidInputError(shown, `unknown parameter${shown === name ? '' : ' (name not shown)'} ${known.length ? `(known: ${known.join(', ')})` : '(this route takes no query parameters)'}`);
}

/** The error for a parameter given more than once (or with a structured value). */
export function repeatedParameter(name: string): InvalidInputError {
  return new InvalidInputError(name, 'must be given once, as a single value');
}

const DURATION = '[0-9]{1,9}[smhdw]';
const TIME = `^(${DURATION}|[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2}))$`;

function schemaOf(spec: ParamSpec): Record<string, unknown> {
  const base = { type: 'string', description: spec.description };
  switch (spec.kind) {
    case 'text': return { ...base, minLength: 1, maxLength: 256 };
    case 'id': return { ...base, pattern: ID_PATTERN };
    case 'enum': return { ...base, enum: [...spec.values] };
    case 'int': return { ...base, pattern: '^[0-9]{1,15}$' };
    case 'time': return { ...base, pattern: TIME };
    case 'limit': return { ...base, pattern: '^[0-9]{1,6}$', default: String(spec.default) };
    case 'cursor': return { ...base, minLength: 1, maxLength: MAX_KEY_CURSOR };
  }
}

/** The JSON Schema of a query (for validation and for the OpenAPI document). */
export function querySchema(specs: ParamSpecs): Record<string, unknown> {
  const required = Object.entries(specs).filter(([, spec]) => (spec as Partial<RequiredParam>).required).map(([name]) => name);
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, schemaOf(spec)])),
    ...(required.length ? { required } : {}),
  };
}

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false });

/**
 * Validates raw query parameters (HTTP query strings or CLI flags, as strings) and converts them.
 * Any problem is an InvalidInputError naming the parameter; nothing unknown passes.
 */
export class QueryParser {
  /** Compiled on first use: a process (a CLI command) builds every list but queries one or two. */
  private compiled: ValidateFunction | undefined;

  constructor(readonly specs: ParamSpecs, private readonly now: () => number) {}

  private get validate(): ValidateFunction {
    return (this.compiled ??= ajv.compile(querySchema(this.specs)));
  }

  parse(raw: Readonly<Record<string, unknown>>): ParsedParams {
    const input = bareObject<unknown>();
    for (const [k, v] of Object.entries(raw)) {
      if (v === undefined) continue;
      input[k] = typeof v === 'number' ? String(v) : v;
    }
    const validate = this.validate;
    if (!validate(input)) throw toInputError(validate.errors?.[0], this.specs);
    const out: ParsedParams = bareObject();
    for (const [name, spec] of Object.entries(this.specs)) {
      const value = input[name] as string | undefined;
      if (value === undefined) {
        if (spec.kind === 'limit') out[name] = spec.default;
        continue;
      }
      out[name] = this.convert(name, spec, value);
    }
    return out;
  }

  private convert(name: string, spec: ParamSpec, value: string): string | number {
    switch (spec.kind) {
      case 'int': {
        const n = Number(value);
        if (!Number.isSafeInteger(n)) throw new InvalidInputError(name, 'must be a non-negative integer');
        return n;
      }
      case 'limit': {
        const n = Number(value);
        if (n < spec.min || n > spec.max) throw new InvalidInputError(name, `must be an integer from ${spec.min} to ${spec.max}`);
        return n;
      }
      case 'time': {
        if (/^[0-9]+[smhdw]$/.test(value)) return this.now() - parseDuration(value, name);
        const ms = parseRfc3339(value);
        if (ms === undefined) throw new InvalidInputError(name, 'is not a valid RFC 3339 timestamp');
        return ms;
      }
      default:
        return value;
    }
  }
}

function toInputError(error: ErrorObject | undefined, specs: ParamSpecs): InvalidInputError {
  if (!error) return new InvalidInputError('query', 'invalid');
  if (error.keyword === 'additionalProperties') {
    return unknownParameter(String((error.params as { additionalProperty: string }).additionalProperty), specs);
  }
  if (error.keyword === 'required') {
    const name = String((error.params as { missingProperty: string }).missingProperty);
    return new InvalidInputError(name, `required (${specs[name]?.description ?? 'a value'})`);
  }
  const name = decodePointer(error.instancePath.replace(/^\//, '').split('/')[0] ?? '') || 'query';
  const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
  if (error.keyword === 'type') return repeatedParameter(name);
  if (spec?.kind === 'enum') return new InvalidInputError(name, `must be one of ${spec.values.join(', ')}`);
  if (spec?.kind === 'id') return new InvalidInputError(name, 'malformed id (expected [A-Za-z0-9][A-Za-z0-9._:-]{0,127})');
  if (spec?.kind === 'time') return new InvalidInputError(name, 'must be a duration such as 24h or 7d, or an RFC 3339 timestamp');
  if (spec?.kind === 'limit') return new InvalidInputError(name, `must be an integer from ${spec.min} to ${spec.max}`);
  if (spec?.kind === 'int') return new InvalidInputError(name, 'must be a non-negative integer');
  return new InvalidInputError(name, spec ? `must be ${spec.description}` : 'invalid');
}

/** One segment of a JSON pointer, unescaped. */
function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
