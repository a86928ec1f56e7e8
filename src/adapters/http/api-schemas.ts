import type { JsonSchema } from './route-table';

/**
 * The shapes the API answers (CONTRACT section 4), as JSON Schema for the OpenAPI document. A test checks real
 * answers against them, so the document cannot drift from what the server sends.
 *
 * Field words: `string`, `integer`, `boolean`, `time` (RFC 3339), `wei` (decimal string), `any`, each with `?`
 * when it may be null and `[]` for a list.
 */
type Field = string | JsonSchema;

const WORDS: Record<string, JsonSchema> = {
  string: { type: 'string' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  time: { type: 'string', format: 'date-time' },
  wei: { type: 'string', pattern: '^[0-9]+$', description: 'exact wei, a decimal string' },
  any: {},
};

function field(f: Field): JsonSchema {
  if (typeof f !== 'string') return f;
  if (f.endsWith('[]')) return { type: 'array', items: field(f.slice(0, -2)) };
  const nullable = f.endsWith('?');
  const word = WORDS[nullable ? f.slice(0, -1) : f];
  if (!word) throw new Error(`api-schemas: unknown field word ${f}`);
  if (!nullable || !('type' in word)) return word;
  return { ...word, type: [word.type as string, 'null'] };
}

/** One of these words, or null when `nullable`. */
function oneOf(values: readonly string[], nullable = false): JsonSchema {
  return { type: nullable ? ['string', 'null'] : 'string', enum: nullable ? [...values, null] : [...values] };
}

/** The closed vocabularies of CONTRACT 4 and 11. Error kinds stay open strings: section 8.2's list grows. */
export const RUN_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'dead_lettered', 'cancelled', 'skipped'] as const;
export const SESSIONS = ['live', 'replay', 'test'] as const;
export const TRIGGER_KINDS = ['manual', 'cron', 'webhook', 'event'] as const;
export const SEND_STATUSES = ['queued', 'parked', 'submitted', 'settled'] as const;
export const SEND_OUTCOMES = ['confirmed', 'reverted', 'dropped', 'expired', 'replaced'] as const;
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export const WAIT_KINDS = ['tx', 'delay', 'event', 'approval'] as const;
export const SESSION_KINDS = ['replay', 'test'] as const;
/** A step run as the timeline shows it: `waiting` while its run is parked on it. */
const STEP_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'skipped'] as const;

/** An object with exactly these members, all present. */
export function object(fields: Readonly<Record<string, Field>>, description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: Object.keys(fields),
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, field(f)])),
  };
}

/** The list envelope of SPEC, Conventions. */
export function envelope(item: JsonSchema): JsonSchema {
  return object({ items: { type: 'array', items: item }, cursor: 'string?', has_more: 'boolean' });
}

export const ERROR = object({ error: 'string' }, 'What was wrong, naming the parameter or member: `<name>: <reason>`');

export const RUN_ITEM = object({
  run_id: 'string', workflow: 'string', status: oneOf(RUN_STATUSES), trigger: oneOf(TRIGGER_KINDS), session: oneOf(SESSIONS), session_id: 'string?',
  network: 'string?', contract: 'string?', relayers: 'string[]', tx_hashes: 'string[]', block: 'integer?', step_ids: 'string[]',
  error_kind: 'string?', approval_status: oneOf(APPROVAL_STATUSES, true), wait_kind: oneOf(WAIT_KINDS, true), replay_of: 'string?', created_at: 'time',
  finished_at: 'time?', duration_ms: 'integer?',
});

export const SEND_ATTEMPT = object({
  send_id: 'string', run_id: 'string', step_run_id: 'string', workflow: 'string', session: oneOf(SESSIONS), network: 'string',
  chain_id: 'integer', relayer: 'string', status: oneOf(SEND_STATUSES), outcome: oneOf(SEND_OUTCOMES, true), tx_hash: 'string?', idempotency_key: 'string',
  explorer_url: 'string?', to: 'string', value_wei: 'wei',
  token_transfer: {
    oneOf: [{ type: 'null' }, object({ contract: 'string', to: 'string', amount: 'wei' }, 'A token transfer call: the token contract, the recipient, the amount in the token\'s base units')],
  },
  created_at: 'time', updated_at: 'time',
});

export const APPROVAL_ITEM = object({
  approval_id: 'string', run_id: 'string', step_run_id: 'string', workflow: 'string', status: oneOf(APPROVAL_STATUSES), message: 'string?',
  requested_at: 'time', expires_at: 'time?', decided_at: 'time?', decided_by: 'string?', reason: 'string?',
});

export const WAITING_ITEM = object({
  run_id: 'string', workflow: 'string', wait_kind: oneOf(WAIT_KINDS, true), step_run_id: 'string?', parked_at: 'time?', due_at: 'time?', expires_at: 'time?',
});

/** Explorer links to a reorg's blocks: the one now at its height, and the removed one by its hash. */
const REORG_BLOCK_URLS = { block_url: 'string?', removed_block_url: 'string?' } as const;

export const REORG_ITEM = object({
  reorg_id: 'string', run_id: 'string', workflow: 'string', network: 'string', block: 'integer', removed_block_hash: 'string?',
  depth: 'integer?', created_at: 'time',
  steps: { type: 'array', items: object({ step_id: 'string', status: 'string', output: 'any', error: 'any', at: 'time' }) },
  ...REORG_BLOCK_URLS,
});

export const REPLAY_ITEM = object({
  session_id: 'string', kind: oneOf(SESSION_KINDS), workflow: 'string', created_at: 'time', finished_at: 'time?', run_count: 'integer',
  from_block: 'integer?', to_block: 'integer?',
});

export const WORKFLOW_ROW = object({
  workflow: 'string', paused: 'boolean', trigger: oneOf(TRIGGER_KINDS, true), last_run_at: 'time?', last_success_at: 'time?', last_failure_at: 'time?',
  success_count: 'integer', failure_count: 'integer', runs_waiting: 'integer', median_duration_ms: 'integer?',
  p95_duration_ms: 'integer?', tx_count: 'integer', recent_error_kind: 'string?', cursor_block: 'integer?', head_block: 'integer?',
  lag_blocks: 'integer?',
});

const ERROR_INFO = { type: 'object', required: ['kind'], properties: { kind: field('string'), message: field('string') } };
const ERROR_INFO_OR_NULL = { anyOf: [{ type: 'null' }, ERROR_INFO] };

/** The log that started an event run, with explorer links (null where the network has no known explorer). */
const TRIGGER_LOG = object({
  network: 'string?', contract: 'string', block_number: 'integer', block_hash: 'string', block_time: 'time?', tx_hash: 'string?',
  log_index: 'integer', tx_url: 'string?', block_url: 'string?', contract_url: 'string?',
});

/** The four kinds of timeline event (SPEC, Timeline), each with every member it carries. */
const TIMELINE_EVENT = {
  oneOf: [
    object({
      kind: { const: 'trigger' }, at: 'time',
      trigger: object({ kind: oneOf(TRIGGER_KINDS), summary: 'string?', payload: 'any' }),
      conditions: { type: 'array', items: object({ name: 'string', passed: 'boolean', detail: 'any' }) },
      session: oneOf(SESSIONS), session_id: 'string?', replay_of: 'string?', network: 'string?', contract: 'string?', block: 'integer?',
      log: { anyOf: [{ type: 'null' }, TRIGGER_LOG] },
      reorgs: {
        type: 'array',
        items: object({ reorg_id: 'string', created_at: 'time', network: 'string', block: 'integer', removed_block_hash: 'string?', ...REORG_BLOCK_URLS }),
      },
    }),
    object({
      kind: { const: 'step' }, at: 'time', step_run_id: 'string', step_id: 'string', step_type: 'string', status: oneOf(STEP_STATUSES),
      attempts: { type: 'array', items: object({ attempt: 'integer', started_at: 'time', finished_at: 'time?', status: oneOf(STEP_STATUSES), error: ERROR_INFO_OR_NULL }) },
      input: 'any', output: 'any', error: ERROR_INFO_OR_NULL,
      simulation: { anyOf: [{ type: 'null' }, object({ ok: 'boolean', gas_estimate: 'string?', revert_reason: 'string?', at: 'time' })] },
      budget_checks: {
        type: 'array',
        items: object({ budget: 'string', cap: 'string', spent_wei: 'wei', cap_wei: 'wei', request_wei: { anyOf: [field('wei'), { type: 'null' }] }, token: 'string?', allowed: 'boolean', at: 'time' }),
      },
      sends: { type: 'array', items: SEND_ATTEMPT },
      wait: { anyOf: [{ type: 'null' }, object({ wait_kind: oneOf(WAIT_KINDS), parked_at: 'time', due_at: 'time?', expires_at: 'time?', resumed_at: 'time?' })] },
    }),
    object({ kind: { const: 'approval' }, at: 'time', approval: APPROVAL_ITEM }),
    object({
      kind: { const: 'reorg_step' }, at: 'time', reorg_id: 'string', step_id: 'string', status: 'string', output: 'any', error: ERROR_INFO_OR_NULL,
      network: 'string', block: 'integer', removed_block_hash: 'string?',
    }),
  ],
};

/** A run and its events in time order. */
export const TIMELINE = object({ run: RUN_ITEM, events: { type: 'array', items: TIMELINE_EVENT } });

/** A field that differs: `a` or `b` is absent where that run has no such field (never both). */
const CHANGES = {
  type: 'array',
  items: { type: 'object', required: ['path'], additionalProperties: false, properties: { path: field('string'), a: {}, b: {} }, anyOf: [{ required: ['a'] }, { required: ['b'] }] },
};
const STEP_SIDE = { anyOf: [object({ step_run_id: 'string', status: oneOf(STEP_STATUSES), attempts: 'integer', duration_ms: 'integer?' }), { type: 'null' }] };

export const RUN_DIFF = {
  type: 'object', required: ['a', 'b', 'run', 'trigger', 'steps', 'sends'],
  properties: {
    a: RUN_ITEM, b: RUN_ITEM, run: CHANGES, trigger: CHANGES, sends: CHANGES,
    steps: { type: 'array', items: { type: 'object', required: ['step_id', 'a', 'b', 'changes'], properties: { step_id: field('string'), a: STEP_SIDE, b: STEP_SIDE, changes: CHANGES } } },
  },
};

const TOTALS = { tx_count: 'integer', gas_spend_wei: 'wei', value_wei: 'wei', reverted_count: 'integer', reverted_gas_wei: 'wei' } as const;
const GROUP = object({ key: 'string', ...TOTALS });

export const LEDGER_ENTRY = object({
  recorded_at: 'time', workflow: 'string', run_id: 'string', step_run_id: 'string', relayer: 'string', network: 'string',
  chain_id: 'integer', tx_hash: 'string', gas_used: 'wei', effective_gas_price: 'wei', gas_spend_wei: 'wei', value_wei: 'wei',
  reverted: 'boolean', reorged: 'boolean',
});

export const SPEND_REPORT = object({
  summary: object({ by_workflow: { type: 'array', items: GROUP }, by_relayer: { type: 'array', items: GROUP }, by_network: { type: 'array', items: GROUP }, total: object(TOTALS) }),
  entries: { type: 'array', items: LEDGER_ENTRY },
  explorer_urls: { type: 'object', additionalProperties: field('string?'), description: 'tx hash -> explorer link, or null' },
});

export const CONFIGURED_WORKFLOW = object({
  workflow: 'string', trigger: 'string', schedule: 'string?', paused: 'boolean', next_tick_at: 'time?', lease_holders: 'integer', steps: 'string[]',
  network: 'string?', cursor_block: 'integer?', head_block: 'integer?', lag_blocks: 'integer?',
});

export const RELAYER_ROW = object({
  relayer: 'string', network: 'string', chain_id: 'integer?', address: 'string?', balance_wei: { anyOf: [field('wei'), { type: 'null' }] },
  balance_error: 'string?', low_balance: 'boolean?', low_balance_threshold_wei: { anyOf: [field('wei'), { type: 'null' }] },
  recent_gas_spend_wei: 'wei', funding_estimate_wei: 'wei', shortfall_wei: { anyOf: [field('wei'), { type: 'null' }] }, explorer_url: 'string?',
});

export const TOPUP_ITEM = object({
  topup_id: 'string', at: 'time', by: 'string', from: 'string', to: 'string', network: 'string', amount_wei: 'wei', tx_hash: 'string?',
  outcome: 'string', error: 'string?', chain_id: 'integer', from_address: 'string', to_address: 'string', run_id: 'string', explorer_url: 'string?',
});

/** One cap of a budget: amounts in wei, or a token's base units for `max_token_value` (decimal strings). */
export const BUDGET_CAP = object({
  kind: { enum: ['max_gas_spend', 'max_native_value', 'max_token_value'] }, token: 'string?',
  spent: { anyOf: [field('wei'), { type: 'null' }] }, reserved: 'wei', cap: 'wei', headroom: 'wei',
});

export const BUDGET_ITEM = object({
  budget: 'string', window: 'string', window_start: 'time', relayers: { anyOf: [field('string[]'), { type: 'null' }] }, workflows: 'string[]',
  caps: { type: 'array', items: BUDGET_CAP },
});

export const RUN_STARTED = object({ run_id: 'string' });
export const REPLAY_STARTED = object({ session_id: 'string' });
export const WORKFLOW_PAUSED = object({ workflow: 'string', paused: 'boolean' });
export const APPROVAL_DECIDED = object({ approval_id: 'string', run_id: 'string', status: oneOf(['approved', 'rejected']), decided_by: 'string', reason: 'string?' });
export const RUN_CANCELLED = object({ run_id: 'string', status: { const: 'cancelled' } });
export const LIVE = object({ status: { const: 'ok' } });
export const HEALTH = {
  type: 'object', required: ['status', 'storage', 'checks'],
  properties: {
    status: { enum: ['ok', 'unavailable'] },
    storage: { enum: ['sqlite', 'postgres'], description: 'the storage technology (never its URL)' },
    checks: { type: 'object', required: ['database'], properties: { database: { enum: ['ok', 'unavailable'] } }, additionalProperties: { type: 'string' } },
  },
};
