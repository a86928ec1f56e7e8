import type { ErrorObject } from 'ajv';
import { notifyRule, workflowSchema } from './workflow.schema';

/**
 * JSON Schema (draft-07, ajv's default) of `chainflow.yaml` (CONTRACT section 2), and the wording that turns
 * ajv's errors into one plain line per problem. The schema checks shapes only; amounts, durations, names that
 * must exist and secret resolution are checked by the loader.
 */

/** `{ secret: NAME }` or `{ env: NAME }`: exactly one key. Errors anywhere under it read as one "reference" line. */
const reference = {
  type: 'object',
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
  properties: {
    secret: { type: 'string', minLength: 1 },
    env: { type: 'string', minLength: 1 },
  },
} as const;

/** Declared secrets come from the environment only: `{ env: VAR }`. */
const envReference = {
  type: 'object',
  required: ['env'],
  additionalProperties: false,
  properties: { env: { type: 'string', minLength: 1 } },
} as const;

/** Exact amount: an integer wei or `<decimal> wei|gwei|ether`; the value itself is checked by parseAmount. */
const amount = { type: ['string', 'number'] } as const;

const nameList = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true } as const;

/**
 * A notification channel (CONTRACT 11): a Standard Webhooks endpoint with its signing secret, or a Slack incoming
 * webhook, whose URL is itself the credential (so it is a reference).
 */
const notificationChannel = {
  type: 'object',
  required: ['kind', 'url'],
  properties: { kind: { enum: ['webhook', 'slack'] } },
  allOf: [
    {
      if: { properties: { kind: { const: 'webhook' } } },
      then: {
        properties: { kind: true, url: { type: 'string', format: 'uri', pattern: '^https?://', description: 'an http(s) URL' }, secret: { $ref: '#/definitions/reference' } },
        required: ['secret'], additionalProperties: false,
      },
    },
    { if: { properties: { kind: { const: 'slack' } } }, then: { properties: { kind: true, url: { $ref: '#/definitions/reference' } }, additionalProperties: false } },
  ],
} as const;

export const configSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['chainflow_version'],
  additionalProperties: false,
  definitions: { reference, envReference, amount, nameList },
  properties: {
    chainflow_version: { const: 1 },
    secrets: { type: 'object', additionalProperties: { $ref: '#/definitions/envReference' } },
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        listen: { type: 'string' },
        auth: {
          type: 'object',
          additionalProperties: false,
          properties: { token: { $ref: '#/definitions/reference' } },
        },
        public_url: { type: 'string', format: 'uri', pattern: '^https?://', description: 'an http(s) URL' },
        health_public: { type: 'boolean' },
        metrics_public: { type: 'boolean' },
      },
    },
    storage: {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      properties: { url: { type: 'string', minLength: 1 }, password: { $ref: '#/definitions/reference' } },
    },
    networks: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['chain_id', 'rpc'],
        additionalProperties: false,
        properties: {
          chain_id: { type: 'integer', exclusiveMinimum: 0 },
          native_symbol: { type: 'string', minLength: 1 },
          rpc: { type: 'array', minItems: 1, items: { $ref: '#/definitions/reference' } },
          explorer: { type: 'string', format: 'uri', pattern: '^https?://', description: 'an http(s) URL' },
          replace_after: { type: 'string' },
          max_fee_per_gas: { $ref: '#/definitions/amount' },
          confirmations: { type: 'integer', minimum: 1, maximum: 1000 },
          poll_interval: { type: 'string' },
          max_block_range: { type: 'integer', minimum: 1, maximum: 1_000_000 },
          finality_depth: { type: 'integer', minimum: 1, maximum: 10_000 },
        },
      },
    },
    relayers: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['network'],
        additionalProperties: false,
        properties: {
          network: { type: 'string', minLength: 1 },
          signer: { $ref: '#/definitions/reference' },
          low_balance: { $ref: '#/definitions/amount' },
        },
      },
    },
    budgets: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['window'],
        additionalProperties: false,
        properties: {
          window: { type: 'string' },
          max_gas_spend: { $ref: '#/definitions/amount' },
          max_native_value: { $ref: '#/definitions/amount' },
          max_token_value: { $ref: '#/definitions/amount' },
          scope: {
            type: 'object',
            additionalProperties: false,
            properties: { relayers: { $ref: '#/definitions/nameList' } },
          },
        },
      },
    },
    workflows: { type: 'object', additionalProperties: workflowSchema },
    notifications: { type: 'object', additionalProperties: notificationChannel },
    notify: notifyRule,
    engine: {
      type: 'object',
      additionalProperties: false,
      properties: {
        lease_ttl: { type: 'string' },
        poll_interval: { type: 'string' },
        concurrency: { type: 'integer', minimum: 1, maximum: 1024 },
      },
    },
  },
} as const;

/** Dotted path from a JSON pointer: `/networks/sepolia/rpc/0` → `networks.sepolia.rpc[0]`. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^[0-9]+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/** Joins a dotted path and a key (`''` is the top level). */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  object: 'a map',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'empty',
};

/**
 * Plain-word description of a YAML value's kind, for "not …" endings. Never the value itself: a literal where a
 * reference belongs is usually the secret (issue #13: no message carries a value of the config).
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'boolean') return 'true or false';
  return 'a number';
}

export const REFERENCE_WORDS = 'must be a reference { secret: NAME } or { env: NAME }';

/** One problem: `path` is dotted (empty for the top level), `message` is plain words. */
export interface SchemaProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Turns ajv errors (run with `allErrors` and `verbose`) into problems, one per path: errors inside a
 * reference collapse into one line at the reference, unknown keys are reported at the key itself.
 */
export function schemaProblems(errors: readonly ErrorObject[]): SchemaProblem[] {
  const byPath = new Map<string, string>();
  const add = (path: string, message: string): void => {
    if (!byPath.has(path)) byPath.set(path, message);
  };
  for (const error of errors) {
    // An if/then's own summary ("must match then schema"): the error inside `then` says what is wrong.
    if (error.keyword === 'if') continue;
    let path = pointerToPath(error.instancePath);
    const refMatch = /^#\/definitions\/(reference|envReference)\/(properties\/)?/.exec(error.schemaPath);
    if (refMatch) {
      // Errors under a reference's own properties point one level too deep.
      if (refMatch[2]) path = pointerToPath(error.instancePath.replace(/\/[^/]*$/, ''));
      add(path, referenceMessage(refMatch[1] === 'envReference', error, !!refMatch[2]));
      continue;
    }
    const message = plainMessage(error);
    if (error.keyword === 'additionalProperties') {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      add(childPath(path, key), message);
    } else if (error.keyword === 'required') {
      add(childPath(path, String((error.params as { missingProperty: string }).missingProperty)), message);
    } else {
      add(path, message);
    }
  }
  return [...byPath].map(([path, message]) => ({ path, message }));
}

function referenceMessage(envOnly: boolean, error: ErrorObject, nested: boolean): string {
  const words = envOnly ? 'must be { env: NAME }' : REFERENCE_WORDS;
  const data = nested ? undefined : (error.data as unknown);
  if (!nested && (data === null || typeof data !== 'object')) return `${words}, not ${describeValue(data)}`;
  return words;
}

function plainMessage(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const description = (error.parentSchema as { description?: string } | undefined)?.description;
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown key '${String(params.additionalProperty)}'`;
    case 'required':
      return 'is required';
    case 'type': {
      const types = String(params.type).split(',').map((t) => TYPE_WORDS[t] ?? t);
      return `must be ${types.join(' or ')}, not ${describeValue(error.data)}`;
    }
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}, not ${describeValue(error.data)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(params.limit)}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'minItems':
      return `must list at least ${String(params.limit)} item(s)`;
    case 'minLength':
      return 'must not be empty';
    case 'uniqueItems':
      return 'must not list the same name twice';
    case 'format':
    case 'pattern':
      return description ? `must be ${description}` : `must match ${String(params.pattern ?? params.format)}`;
    default:
      return error.message ?? 'is not valid';
  }
}
