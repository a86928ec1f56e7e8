import { ID_PATTERN } from '../../domain/ids';
import { NOTIFICATION_TYPES } from '../../domain/notifications/notification';

/**
 * JSON Schema of a workflow's engine definition (CONTRACT 8.1): triggers, conditions and steps. Shapes only;
 * durations, amounts, expressions and cron schedules are checked by the workflow reader.
 */
const id = { type: 'string', pattern: ID_PATTERN, description: 'an id: a letter or digit, then letters, digits, . _ : -' } as const;
const text = { type: 'string', minLength: 1 } as const;
const retry = {
  type: 'object',
  additionalProperties: false,
  properties: { attempts: { type: 'integer', minimum: 1, maximum: 100 }, backoff: { type: 'string' }, max_backoff: { type: 'string' } },
} as const;

/** Keys every step may have. */
const common = { id, type: true, if: { type: 'string' }, retry, in_test: { const: 'skip' }, timeout: { type: 'string' } } as const;

/** Per step type: its own keys (with `common`), and which are required. */
const STEP_KEYS: Record<string, { properties: Record<string, unknown>; required: string[] }> = {
  http_call: {
    properties: {
      method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] }, url: text, headers: { type: 'object' }, body: true,
    },
    required: ['url'],
  },
  approval: { properties: { message: { type: 'string' }, expires: { type: 'string' } }, required: [] },
  delay: { properties: { duration: { type: 'string' } }, required: ['duration'] },
  send: {
    properties: {
      relayer: text, to: text, value: { type: ['string', 'number'] }, data: { type: 'string' },
      call: { type: 'object', required: ['function'], additionalProperties: false, properties: { function: text, args: { type: 'array' } } },
      wait_for: { enum: ['none', 'submitted', 'confirmed'] }, confirmations: { type: 'integer', minimum: 1, maximum: 1000 },
      gas_limit: { type: 'integer', minimum: 21000 },
    },
    required: ['relayer', 'to'],
  },
  read: {
    properties: {
      network: text, to: text,
      call: { type: 'object', required: ['function'], additionalProperties: false, properties: { function: text, args: { type: 'array' } } },
    },
    required: ['network', 'to', 'call'],
  },
  wait_event: {
    properties: {
      network: text, address: { type: ['string', 'array'], minLength: 1, minItems: 1, items: text }, event: text, where: text,
      confirmations: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    required: ['network', 'address', 'event'],
  },
};

const step = {
  type: 'object',
  required: ['id', 'type'],
  properties: { id, type: { enum: Object.keys(STEP_KEYS) } },
  allOf: Object.entries(STEP_KEYS).map(([type, keys]) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: { properties: { ...common, ...keys.properties }, required: keys.required, additionalProperties: false },
  })),
} as const;

const trigger = {
  type: 'object',
  required: ['kind'],
  properties: { kind: { enum: ['manual', 'cron', 'webhook', 'event'] } },
  allOf: [
    { if: { properties: { kind: { const: 'manual' } } }, then: { properties: { kind: true }, additionalProperties: false } },
    { if: { properties: { kind: { const: 'cron' } } }, then: { properties: { kind: true, schedule: text }, required: ['schedule'], additionalProperties: false } },
    {
      if: { properties: { kind: { const: 'webhook' } } },
      then: {
        properties: { kind: true, auth: { type: 'object', required: ['hmac'], additionalProperties: false, properties: { hmac: true } } },
        required: ['auth'], additionalProperties: false,
      },
    },
    {
      if: { properties: { kind: { const: 'event' } } },
      then: {
        properties: {
          kind: true, network: text, address: { type: ['string', 'array'], minLength: 1, minItems: 1, items: text }, event: text,
          confirmations: { type: 'integer', minimum: 1, maximum: 1000 },
          // `latest` or a block number: the reader says which is wrong, in those words.
          from_block: { type: ['string', 'integer'] },
        },
        required: ['network', 'address', 'event'], additionalProperties: false,
      },
    },
  ],
} as const;

/** `notify: { on: [types…], to: [channels…] }`, per workflow or as the top-level default (CONTRACT 11). */
export const notifyRule = {
  type: 'object',
  required: ['on', 'to'],
  additionalProperties: false,
  properties: {
    on: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: NOTIFICATION_TYPES } },
    to: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', minLength: 1 } },
  },
} as const;

export const workflowSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    budgets: { $ref: '#/definitions/nameList' },
    paused: { type: 'boolean' },
    trigger,
    conditions: {
      type: 'array',
      items: { type: 'object', required: ['name', 'if'], additionalProperties: false, properties: { name: text, if: text } },
    },
    steps: { type: 'array', minItems: 1, items: step },
    on_reorg: { type: 'array', items: step },
    notify: notifyRule,
  },
} as const;
