import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ID_PATTERN } from '../../domain/ids';
import { JOURNAL_EVENT_TYPES, type JournalEvent, type JournalEventType } from '../../domain/journal/journal-event';
import { parseRfc3339 } from '../../domain/time';

const id = { type: 'string', pattern: ID_PATTERN };
const name = { type: 'string', minLength: 1, maxLength: 256 };
const text = { type: 'string', maxLength: 65536 };
const time = { type: 'string', format: 'rfc3339' };
const wei = { type: 'string', pattern: '^(0|[1-9][0-9]{0,77})$' };
const quantity = { type: 'string', pattern: '^((0|[1-9][0-9]{0,77})|0x[0-9a-fA-F]{1,64})$' };
const uint = { type: 'integer', minimum: 0 };
/** The trigger kinds of CONTRACT 8.1: the API's run items state them as an enum, so the journal holds no other. */
const triggerKind = { enum: ['manual', 'cron', 'webhook', 'event'] };
const error = { type: 'object', required: ['kind'], additionalProperties: false, properties: { kind: name, message: text } };
const receipt = {
  type: 'object', additionalProperties: true,
  properties: {
    gasUsed: quantity, effectiveGasPrice: quantity, gasPrice: quantity, l1Fee: quantity,
    status: { type: ['string', 'integer', 'boolean'] }, blockNumber: { anyOf: [quantity, uint] },
    blockHash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
  },
};

type Props = Record<string, unknown>;
const shapes: Record<JournalEventType, { required: string[]; properties: Props }> = {
  'run.started': {
    required: ['run_id', 'workflow', 'session', 'trigger'],
    properties: {
      run_id: id, workflow: name, session: { enum: ['live', 'replay', 'test'] }, session_id: id,
      trigger: {
        type: 'object', required: ['kind'], additionalProperties: false,
        properties: {
          kind: triggerKind, summary: text, payload: {},
          // The log an event run started from (CONTRACT 8.6), beside its decoded payload.
          block: {
            type: 'object', required: ['number', 'hash'], additionalProperties: false,
            properties: { number: uint, hash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' }, timestamp: uint },
          },
          tx_hash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' },
          log: { type: 'object', required: ['address', 'log_index'], additionalProperties: false, properties: { address: name, log_index: uint } },
        },
      },
      network: name, contract: name, block: uint, replay_of: id,
    },
  },
  'run.conditions': {
    required: ['run_id', 'results'],
    properties: {
      run_id: id,
      results: { type: 'array', items: { type: 'object', required: ['name', 'passed'], additionalProperties: false, properties: { name, passed: { type: 'boolean' }, detail: {} } } },
    },
  },
  'step.started': {
    required: ['run_id', 'step_run_id', 'step_id', 'step_type', 'attempt'],
    properties: { run_id: id, step_run_id: id, step_id: id, step_type: name, attempt: { type: 'integer', minimum: 1 }, input: {} },
  },
  'step.simulated': {
    required: ['run_id', 'step_run_id', 'ok'],
    properties: { run_id: id, step_run_id: id, ok: { type: 'boolean' }, gas_estimate: quantity, revert_reason: text },
  },
  'budget.checked': {
    required: ['run_id', 'step_run_id', 'budget', 'spent_wei', 'cap_wei', 'allowed'],
    properties: { run_id: id, step_run_id: id, budget: name, spent_wei: wei, cap_wei: wei, allowed: { type: 'boolean' },
      cap: { enum: ['max_gas_spend', 'max_native_value', 'max_token_value'] }, request_wei: wei, token: name },
  },
  'step.finished': {
    required: ['run_id', 'step_run_id', 'status'],
    properties: { run_id: id, step_run_id: id, status: { enum: ['succeeded', 'failed', 'skipped'] }, output: {}, error },
  },
  'send.queued': {
    required: ['run_id', 'step_run_id', 'send_id', 'network', 'chain_id', 'relayer', 'to', 'value_wei', 'idempotency_key'],
    properties: {
      run_id: id, step_run_id: id, send_id: id, network: name, chain_id: { type: 'integer', minimum: 1 }, relayer: name,
      to: name, value_wei: wei, idempotency_key: name,
      token_transfer: {
        type: 'object', required: ['contract', 'to', 'amount'], additionalProperties: false,
        properties: { contract: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' }, to: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' }, amount: wei },
      },
    },
  },
  'send.parked': { required: ['send_id'], properties: { send_id: id, reason: text } },
  'send.submitted': {
    required: ['send_id', 'tx_hash'],
    properties: {
      send_id: id, tx_hash: name, nonce: uint, replacement: { enum: ['fee_bump', 'cancel'] },
      reorged: {
        type: 'object', required: ['block', 'removed_block_hash'], additionalProperties: false,
        properties: { block: uint, removed_block_hash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$' } },
      },
    },
  },
  'send.settled': {
    required: ['send_id', 'outcome'],
    properties: { send_id: id, outcome: { enum: ['confirmed', 'reverted', 'dropped', 'expired', 'replaced'] }, tx_hash: name, receipt },
  },
  'approval.requested': {
    required: ['approval_id', 'run_id', 'step_run_id'],
    properties: { approval_id: id, run_id: id, step_run_id: id, message: text, expires_at: time },
  },
  'approval.decided': {
    required: ['approval_id', 'decision'],
    properties: { approval_id: id, decision: { enum: ['approved', 'rejected', 'expired'] }, by: name, reason: text },
  },
  'run.parked': {
    required: ['run_id', 'wait_kind'],
    properties: { run_id: id, wait_kind: { enum: ['tx', 'delay', 'event', 'approval'] }, step_run_id: id, due_at: time, expires_at: time },
  },
  'run.resumed': { required: ['run_id'], properties: { run_id: id } },
  'run.finished': {
    required: ['run_id', 'status'],
    properties: { run_id: id, status: { enum: ['succeeded', 'failed', 'dead_lettered', 'cancelled', 'skipped'] }, error },
  },
  'reorg.response': {
    required: ['reorg_id', 'run_id', 'workflow', 'network', 'block'],
    properties: { reorg_id: id, run_id: id, workflow: name, network: name, block: uint, removed_block_hash: name, depth: uint },
  },
  'reorg.step': {
    required: ['reorg_id', 'step_id', 'status'],
    properties: { reorg_id: id, step_id: id, status: name, output: {}, error },
  },
  'session.started': {
    required: ['session_id', 'kind', 'workflow'],
    properties: { session_id: id, kind: { enum: ['replay', 'test'] }, workflow: name, from_block: uint, to_block: uint, note: text },
  },
  'session.finished': { required: ['session_id'], properties: { session_id: id } },
  'workflow.state': {
    required: ['workflow'],
    properties: { workflow: name, paused: { type: 'boolean' }, trigger: triggerKind, network: name, cursor_block: uint, head_block: uint },
  },
};

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false });
ajv.addFormat('rfc3339', { type: 'string', validate: (s: string) => parseRfc3339(s) !== undefined });

let compiled: Map<string, ValidateFunction> | undefined;

/** Validators are compiled on first use, so that commands that never check events do not pay for them. */
function validators(): Map<string, ValidateFunction> {
  compiled ??= new Map(
    JOURNAL_EVENT_TYPES.map((type) => {
      const shape = shapes[type];
      return [type, ajv.compile({
        type: 'object', additionalProperties: false, required: ['type', 'at', ...shape.required],
        properties: { type: { const: type }, at: time, ...shape.properties },
      })];
    }),
  );
  return compiled;
}

/** The JSON Schema of one event type (documentation, OpenAPI). */
export function eventSchema(type: JournalEventType): Record<string, unknown> {
  return { required: ['type', 'at', ...shapes[type].required], properties: { type: { const: type }, at: time, ...shapes[type].properties } };
}

/** Checks one decoded event; returns it typed, or a one-line reason naming the field at fault. */
export function checkEvent(value: unknown): { event: JournalEvent } | { problem: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'not a JSON object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { problem: 'type: required' };
  const validate = validators().get(type);
  if (!validate) return { problem: `type: unknown event type (known: ${JOURNAL_EVENT_TYPES.join(', ')})` };
  if (!validate(value)) return { problem: describe(validate.errors?.[0]) };
  return { event: value as JournalEvent };
}

function describe(e: ErrorObject | undefined): string {
  if (!e) return 'invalid';
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  switch (e.keyword) {
    case 'required': return `${path ? `${path}.` : ''}${(e.params as { missingProperty: string }).missingProperty}: required`;
    case 'additionalProperties': {
      // A field name is shown only when it looks like one: the journal's own text is never echoed.
      const field = String((e.params as { additionalProperty: string }).additionalProperty);
      return `${path ? `${path}.` : ''}${/^[A-Za-z0-9_]{1,64}$/.test(field) ? field : '(a field)'}: unknown field`;
    }
    case 'enum': return `${path}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'format': return `${path}: must be an RFC 3339 timestamp`;
    case 'pattern':
      if (/wei$/.test(path)) return `${path}: must be a decimal string of wei`;
      if (/(gasUsed|GasPrice|gasPrice|l1Fee|gas_estimate)$/.test(path)) return `${path}: must be a decimal or 0x-hex string`;
      return `${path}: malformed id (expected [A-Za-z0-9][A-Za-z0-9._:-]{0,127})`;
    default: return `${path || 'event'}: ${e.message}`;
  }
}
