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

export type ParamSpecs = Readonly<Record<string, ParamSpec>>;

/** Parsed values: strings, numbers (int, limit) and epoch ms (time). */
export type ParsedParams = Record<string, string | number | undefined>;

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
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, schemaOf(spec)])),
  };
}

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false });

/**
 * Validates raw query parameters (HTTP query strings or CLI flags, as strings) and converts them.
 * Any problem is an InvalidInputError naming the parameter; nothing unknown passes.
 */
export class QueryParser {
  private readonly validate: ValidateFunction;

  constructor(readonly specs: ParamSpecs, private readonly now: () => number) {
    this.validate = ajv.compile(querySchema(specs));
  }

  parse(raw: Readonly<Record<string, unknown>>): ParsedParams {
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (v === undefined) continue;
      input[k] = typeof v === 'number' ? String(v) : v;
    }
    if (!this.validate(input)) throw toInputError(this.validate.errors?.[0], this.specs);
    const out: ParsedParams = {};
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
        if (ms === undefined) throw new InvalidInputError(name, `'${value}' is not a valid RFC 3339 timestamp`);
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
    const name = String((error.params as { additionalProperty: string }).additionalProperty);
    return new InvalidInputError(name, `unknown parameter '${name}' (known: ${Object.keys(specs).join(', ')})`);
  }
  const name = error.instancePath.replace(/^\//, '').split('/')[0] || 'query';
  const spec = specs[name];
  if (error.keyword === 'type') return new InvalidInputError(name, 'must be given once, as a single value');
  if (spec?.kind === 'enum') return new InvalidInputError(name, `must be one of ${spec.values.join(', ')}`);
  if (spec?.kind === 'id') return new InvalidInputError(name, 'malformed id (expected [A-Za-z0-9][A-Za-z0-9._:-]{0,127})');
  if (spec?.kind === 'time') return new InvalidInputError(name, 'must be a duration such as 24h or 7d, or an RFC 3339 timestamp');
  if (spec?.kind === 'limit') return new InvalidInputError(name, `must be an integer from ${spec.min} to ${spec.max}`);
  if (spec?.kind === 'int') return new InvalidInputError(name, 'must be a non-negative integer');
  return new InvalidInputError(name, spec ? `must be ${spec.description}` : String(error.message));
}
