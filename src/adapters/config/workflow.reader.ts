import type { Json } from '../../domain/journal/journal-event';
import {
  DEFAULT_APPROVAL_EXPIRES_MS, DEFAULT_BACKOFF_MS, DEFAULT_WAIT_EVENT_TIMEOUT_MS, DEFAULT_READ_TIMEOUT_MS, DEFAULT_SEND_TIMEOUT_MS, DEFAULT_HTTP_TIMEOUT_MS, DEFAULT_MAX_BACKOFF_MS, defaultAttempts,
  type ConditionDefinition, type EventTrigger, type RetryPolicy, type StepDefinition, type StepType, type TriggerDefinition, type WorkflowDefinition,
} from '../../domain/engine/workflow';
import { InvalidInputError } from '../../domain/errors';
import { parseDuration } from '../../domain/duration';
import { parseAmount } from '../../domain/wei';
import { templateExpressions } from '../../application/engine/templates';
import { CelExpressions } from '../cel';
import { addressProblem, parseEventSignature, parseSignature, type Signature } from '../chain';
import { AbiError } from '../../application/ports/contract-abi';
import type { ExpressionScope } from '../../application/ports/expressions';
import { CronerCalendar } from '../cron';
import { childPath } from './config.schema';

type Raw = Record<string, unknown>;

/** What the workflow reader needs from the config reader around it. */
export interface WorkflowReaderContext {
  problem(at: string, message: string): void;
  /** Resolves a secret reference; undefined when it is not one or its variable is unset (noted, refused where needed). */
  resolve(value: unknown, at: string): string | undefined;
  /** A configured network's settings an event trigger defaults to; undefined when none has that name. Absent: not checked. */
  network?(name: string): { readonly confirmations: number } | undefined;
}

const isMap = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const celChecker = new CelExpressions();
const cron = new CronerCalendar();

/**
 * Turns a workflow's section (already shape-checked by the JSON Schema) into the definition the engine runs:
 * durations to ms, secret references resolved, every CEL expression and cron schedule checked, naming the path
 * of each problem (`workflows.payouts.steps[2].if: …`). Undefined for a workflow that defines no steps.
 */
export function readWorkflow(name: string, raw: Raw, ctx: WorkflowReaderContext): WorkflowDefinition | undefined {
  if (!Array.isArray(raw.steps)) return undefined;
  const at = childPath('workflows', name);
  const trigger = readTrigger(raw.trigger, childPath(at, 'trigger'), ctx);
  const stepIds = idsOf(raw.steps);
  const conditions: ConditionDefinition[] = (Array.isArray(raw.conditions) ? raw.conditions : []).flatMap((c, i) => {
    if (!isMap(c) || typeof c.name !== 'string' || typeof c.if !== 'string') return [];
    // Conditions decide whether the run starts at all: no step has run yet.
    checkExpression(c.if, childPath(childPath(childPath(at, 'conditions'), i), 'if'), ctx, { steps: [], laterSteps: stepIds, bool: true });
    return [{ name: c.name, if: c.if }];
  });
  const steps = readSteps(raw.steps, childPath(at, 'steps'), ctx, []);
  // on_reorg steps see the affected run's steps (CONTRACT 8.6), then their own earlier ones, and `reorg`.
  const onReorg = Array.isArray(raw.on_reorg) ? readSteps(raw.on_reorg, childPath(at, 'on_reorg'), ctx, stepIds, true) : [];
  if (raw.on_reorg !== undefined && trigger.kind !== 'event') ctx.problem(childPath(at, 'on_reorg'), 'is allowed with event triggers only');
  return {
    name, trigger, paused: raw.paused === true, budgets: Array.isArray(raw.budgets) ? raw.budgets.map(String) : [],
    conditions, steps, onReorg,
  };
}

function readTrigger(raw: unknown, at: string, ctx: WorkflowReaderContext): TriggerDefinition {
  if (!isMap(raw)) {
    ctx.problem(at, 'is required for a workflow with steps');
    return { kind: 'manual' };
  }
  switch (raw.kind) {
    case 'cron': {
      const schedule = String(raw.schedule ?? '');
      const problem = cron.check(schedule);
      if (problem) ctx.problem(childPath(at, 'schedule'), `not a cron schedule: ${problem}`);
      return { kind: 'cron', schedule };
    }
    case 'webhook': {
      const auth = isMap(raw.auth) ? raw.auth : {};
      return { kind: 'webhook', secret: ctx.resolve(auth.hmac, childPath(childPath(at, 'auth'), 'hmac')) ?? '' };
    }
    case 'event':
      return readEventTrigger(raw, at, ctx);
    default:
      return { kind: 'manual' };
  }
}

/** The logs an event trigger or a wait_event step listens for: network, addresses and event, checked now. */
interface LogFilter {
  readonly network: string;
  readonly addresses: string[];
  readonly event: string;
  readonly confirmations: number;
}

/** Its network configured, its addresses and event signature checked now (CONTRACT 8.6, 8.8), each naming its path. */
function readLogFilter(raw: Raw, at: string, ctx: WorkflowReaderContext): LogFilter {
  const list = Array.isArray(raw.address);
  const addresses = (list ? (raw.address as unknown[]) : [raw.address]).flatMap((address, i) => {
    if (typeof address !== 'string') return [];
    checkLiteralAddress(address, list ? childPath(childPath(at, 'address'), i) : childPath(at, 'address'), ctx);
    return [address.trim().toLowerCase()];
  });
  if (typeof raw.event === 'string') {
    try {
      parseEventSignature(raw.event);
    } catch (err) {
      if (!(err instanceof AbiError)) throw err;
      ctx.problem(childPath(at, 'event'), err.message);
    }
  }
  const network = String(raw.network ?? '');
  const configured = ctx.network?.(network);
  if (ctx.network && network && !configured) ctx.problem(childPath(at, 'network'), `names no configured network '${network}'`);
  return {
    network, addresses: [...new Set(addresses)], event: String(raw.event ?? ''),
    confirmations: typeof raw.confirmations === 'number' ? raw.confirmations : configured?.confirmations ?? 1,
  };
}

/** An event trigger (CONTRACT 8.6): its logs, and where a new cursor starts. */
function readEventTrigger(raw: Raw, at: string, ctx: WorkflowReaderContext): EventTrigger {
  let fromBlock: 'latest' | number = 'latest';
  if (typeof raw.from_block === 'number' && Number.isSafeInteger(raw.from_block) && raw.from_block >= 0) fromBlock = raw.from_block;
  else if (raw.from_block !== undefined && raw.from_block !== 'latest') {
    ctx.problem(childPath(at, 'from_block'), 'must be latest or a block number (an integer >= 0)');
  }
  return { kind: 'event', ...readLogFilter(raw, at, ctx), fromBlock };
}

/** The ids of a list of steps, in order. */
function idsOf(raw: unknown): string[] {
  return Array.isArray(raw) ? raw.flatMap((item) => (isMap(item) && typeof item.id === 'string' ? [item.id] : [])) : [];
}

/** `before`: the step ids whose results every step of this list may read (the run's, for on_reorg). */
function readSteps(raw: unknown[], at: string, ctx: WorkflowReaderContext, before: readonly string[], reorg = false): StepDefinition[] {
  const seen = new Set<string>();
  const steps: StepDefinition[] = [];
  const ids = idsOf(raw);
  raw.forEach((item, i) => {
    const stepAt = childPath(at, i);
    if (!isMap(item) || typeof item.id !== 'string' || typeof item.type !== 'string') return;
    if (seen.has(item.id)) ctx.problem(childPath(stepAt, 'id'), 'is used by an earlier step of this workflow (step ids are unique)');
    const scope: ExpressionScope = { steps: [...before, ...seen], laterSteps: ids.filter((id) => !seen.has(id)), reorg };
    seen.add(item.id);
    const step = readStep(item, stepAt, ctx, scope);
    if (step) steps.push(step);
  });
  return steps;
}

function readStep(raw: Raw, at: string, ctx: WorkflowReaderContext, scope: ExpressionScope): StepDefinition | undefined {
  const type = raw.type as StepType;
  const duration = (key: string, fallback: number): number => {
    const value = raw[key];
    if (typeof value !== 'string') return fallback;
    try {
      return parseDuration(value, childPath(at, key));
    } catch (err) {
      if (!(err instanceof InvalidInputError)) throw err;
      ctx.problem(err.field, err.reason);
      return fallback;
    }
  };
  if (typeof raw.if === 'string') checkExpression(raw.if, childPath(at, 'if'), ctx, { ...scope, bool: true });
  checkTemplates(raw, at, ctx, scope, new Set(['id', 'type', 'if', 'headers', 'retry', 'in_test', 'where']));
  const base = {
    id: raw.id as string, ...(typeof raw.if === 'string' ? { if: raw.if } : {}), retry: readRetry(raw.retry, type, childPath(at, 'retry'), ctx),
    skipInTest: raw.in_test === 'skip',
  };
  switch (type) {
    case 'http_call': {
      const headers: Record<string, string> = {};
      if (isMap(raw.headers)) {
        for (const [header, ref] of Object.entries(raw.headers)) {
          // The engine sends its own, one per attempt: a secret is one fixed value, so every run would look a repeat.
          if (header.toLowerCase() === 'idempotency-key') {
            ctx.problem(childPath(childPath(at, 'headers'), header), 'is set by the engine (<step_run_id>:<attempt>); remove it');
            continue;
          }
          const value = ctx.resolve(ref, childPath(childPath(at, 'headers'), header));
          if (value !== undefined) headers[header] = value;
        }
      }
      return {
        ...base, type, method: typeof raw.method === 'string' ? raw.method : 'GET', url: String(raw.url ?? ''), headers,
        ...(raw.body !== undefined ? { body: raw.body as Json } : {}), timeoutMs: duration('timeout', DEFAULT_HTTP_TIMEOUT_MS),
      };
    }
    case 'approval':
      return { ...base, type, ...(typeof raw.message === 'string' ? { message: raw.message } : {}), expiresMs: duration('expires', DEFAULT_APPROVAL_EXPIRES_MS) };
    case 'delay':
      return { ...base, type, durationMs: duration('duration', 1000) };
    case 'wait_event': {
      if (typeof raw.where === 'string') checkExpression(raw.where, childPath(at, 'where'), ctx, { ...scope, log: true, bool: true });
      return {
        ...base, type, ...readLogFilter(raw, at, ctx), ...(typeof raw.where === 'string' ? { where: raw.where } : {}),
        timeoutMs: duration('timeout', DEFAULT_WAIT_EVENT_TIMEOUT_MS),
      };
    }
    case 'send':
    case 'read': {
      const fields = Object.fromEntries(Object.entries(raw).filter(([k]) => !['id', 'type', 'if', 'retry', 'in_test', 'timeout'].includes(k))) as Record<string, Json>;
      if (typeof raw.value === 'string' && !raw.value.includes('${{')) {
        try {
          parseAmount(raw.value, childPath(at, 'value'));
        } catch (err) {
          if (!(err instanceof InvalidInputError)) throw err;
          ctx.problem(err.field, err.reason);
        }
      }
      if (raw.data !== undefined && raw.call !== undefined) ctx.problem(childPath(at, 'call'), 'give data or call, not both');
      checkChainFields(raw, type, at, ctx);
      return { ...base, type, fields, timeoutMs: duration('timeout', type === 'send' ? DEFAULT_SEND_TIMEOUT_MS : DEFAULT_READ_TIMEOUT_MS) };
    }
    default:
      return undefined;
  }
}

const isLiteral = (value: unknown): value is string => typeof value === 'string' && !value.includes('${{');

/** A literal address (no template) that a run would refuse is refused now, naming its path (CONTRACT 8.8). */
function checkLiteralAddress(value: unknown, at: string, ctx: WorkflowReaderContext): void {
  if (!isLiteral(value)) return;
  const problem = addressProblem(value.trim());
  // YAML reads an unquoted 0x… as a hex integer, which arrives here as its decimal digits.
  const hint = /^[0-9]+$/.test(value) ? ' (an unquoted 0x… is read as a number: quote the address)' : '';
  if (problem) ctx.problem(at, `'${value}' ${problem}${hint}`);
}

/** An `address` argument, or the literal addresses in a list of them (`address[]`, `address[2][]`). */
function checkAddressArgument(type: string, value: unknown, at: string, ctx: WorkflowReaderContext): void {
  if (type === 'address') return checkLiteralAddress(value, at, ctx);
  if (/^address(\[[0-9]*\])+$/.test(type) && Array.isArray(value)) {
    const inner = type.slice(0, type.lastIndexOf('['));
    value.forEach((item, i) => checkAddressArgument(inner, item, childPath(at, i), ctx));
  }
}

/**
 * A send's or read's `to`, and its `call` as far as it is literal: the signature parses (a read's has `returns`),
 * the arguments are as many as it takes, and its `address` arguments are addresses.
 */
function checkChainFields(raw: Raw, type: 'send' | 'read', at: string, ctx: WorkflowReaderContext): void {
  checkLiteralAddress(raw.to, childPath(at, 'to'), ctx);
  const call = isMap(raw.call) ? raw.call : undefined;
  if (!call || !isLiteral(call.function)) return;
  const callAt = childPath(at, 'call');
  let signature: Signature;
  try {
    signature = parseSignature(call.function);
  } catch (err) {
    if (!(err instanceof AbiError)) throw err;
    return ctx.problem(childPath(callAt, 'function'), err.message);
  }
  if (type === 'read' && signature.outputs.length === 0) {
    ctx.problem(childPath(callAt, 'function'), `a read needs returns (…) to decode its result, as in balanceOf(address) returns (uint256)`);
  }
  const args = Array.isArray(call.args) ? call.args : call.args === undefined ? [] : undefined;
  if (!args) return;
  const takes = signature.inputs.length;
  if (args.length !== takes) {
    const given = args.length === 0 ? 'none given' : `${args.length} given`;
    return ctx.problem(childPath(callAt, 'args'), `${signature.name} takes ${takes} argument${takes === 1 ? '' : 's'}, ${given}`);
  }
  signature.inputs.forEach((input, i) => checkAddressArgument(input, args[i], childPath(childPath(callAt, 'args'), i), ctx));
}

function readRetry(raw: unknown, type: StepType, at: string, ctx: WorkflowReaderContext): RetryPolicy {
  const r = isMap(raw) ? raw : {};
  const ms = (key: string, fallback: number): number => {
    if (typeof r[key] !== 'string') return fallback;
    try {
      return parseDuration(r[key] as string, childPath(at, key));
    } catch (err) {
      if (!(err instanceof InvalidInputError)) throw err;
      ctx.problem(err.field, err.reason);
      return fallback;
    }
  };
  const backoffMs = ms('backoff', DEFAULT_BACKOFF_MS);
  const maxBackoffMs = ms('max_backoff', Math.max(DEFAULT_MAX_BACKOFF_MS, backoffMs));
  if (maxBackoffMs < backoffMs) ctx.problem(childPath(at, 'max_backoff'), 'must not be shorter than backoff');
  return { attempts: typeof r.attempts === 'number' ? r.attempts : defaultAttempts(type), backoffMs, maxBackoffMs };
}

function checkExpression(source: string, at: string, ctx: WorkflowReaderContext, scope: ExpressionScope): void {
  const problem = celChecker.check(source, scope);
  if (problem) ctx.problem(at, `not a valid CEL expression: ${problem}`);
}

/** Every `${{ expr }}` in the step's text fields (at any depth) must parse and type-check where it stands. */
function checkTemplates(value: unknown, at: string, ctx: WorkflowReaderContext, scope: ExpressionScope, skip: ReadonlySet<string> = new Set()): void {
  if (typeof value === 'string') {
    for (const source of templateExpressions(value)) checkExpression(source, at, ctx, scope);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => checkTemplates(v, childPath(at, i), ctx, scope));
  } else if (isMap(value)) {
    for (const [k, v] of Object.entries(value)) if (!skip.has(k)) checkTemplates(v, childPath(at, k), ctx, scope);
  }
}
