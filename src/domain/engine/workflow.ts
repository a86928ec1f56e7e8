import type { Json } from '../journal/journal-event';

/**
 * A configured workflow as the engine runs it (CONTRACT 8.1): validated when the config loads, durations in
 * milliseconds, secret references resolved. Expressions stay CEL source text (checked at load, evaluated per run).
 */
export interface WorkflowDefinition {
  readonly name: string;
  readonly trigger: TriggerDefinition;
  /** Starts paused (until `chainflow workflows resume`). */
  readonly paused: boolean;
  readonly budgets: readonly string[];
  readonly conditions: readonly ConditionDefinition[];
  readonly steps: readonly StepDefinition[];
  /** Steps run when a reorg removes the block of a run's log (event triggers; CONTRACT 8.6). */
  readonly onReorg: readonly StepDefinition[];
}

export type TriggerDefinition =
  | { readonly kind: 'manual' }
  | { readonly kind: 'cron'; readonly schedule: string }
  /** `secret`: the resolved HMAC key of the webhook's signature. Never rendered. */
  | { readonly kind: 'webhook'; readonly secret: string }
  | EventTrigger;

/**
 * A workflow started by a contract's logs (CONTRACT 8.6): one run per matching log, once its block has
 * `confirmations` blocks (its own included).
 */
export interface EventTrigger {
  readonly kind: 'event';
  readonly network: string;
  /** Emitting contracts, lowercase 0x-hex (checked at load); a log of any of them matches. */
  readonly addresses: readonly string[];
  /** The event's signature as configured (`Transfer(address indexed from, address indexed to, uint256 value)`). */
  readonly event: string;
  /** Blocks a log's block needs, its own included. Default: the network's `confirmations`, else 1. */
  readonly confirmations: number;
  /** Where a new cursor starts: the head when first polled (`latest`, the default), or this block (inclusive). */
  readonly fromBlock: 'latest' | number;
}

export type TriggerKind = TriggerDefinition['kind'];

export interface ConditionDefinition {
  readonly name: string;
  /** CEL; must evaluate to a bool. */
  readonly if: string;
}

/**
 * How a failed step is tried again (CONTRACT 8.1): `attempts` in total (the first included), waiting `backoffMs`
 * before the second, doubled each time, never more than `maxBackoffMs`.
 */
export interface RetryPolicy {
  /** Total attempts, first included. Default 3 for http_call and read, 1 otherwise. */
  readonly attempts: number;
  /** Wait before the second attempt, in ms. Default 1 s. */
  readonly backoffMs: number;
  /** Upper bound of a wait, in ms. Default 1 min. */
  readonly maxBackoffMs: number;
}

export type StepType = 'http_call' | 'approval' | 'delay' | 'send' | 'read' | 'wait_event';
export const STEP_TYPES: readonly StepType[] = ['http_call', 'approval', 'delay', 'send', 'read', 'wait_event'];

interface StepBase<T extends StepType> {
  readonly id: string;
  readonly type: T;
  /** CEL; when false the step finishes `skipped`. */
  readonly if?: string;
  readonly retry: RetryPolicy;
  /** `chainflow test` skips the step. */
  readonly skipInTest: boolean;
}

export interface HttpCallStep extends StepBase<'http_call'> {
  readonly method: string;
  /** Template (`${{ expr }}`). */
  readonly url: string;
  /** Resolved secret header values by header name. Never journaled: the input shows the names only. */
  readonly headers: Readonly<Record<string, string>>;
  /** Template tree: every string in it may hold `${{ expr }}`. */
  readonly body?: Json;
  /** Per attempt, in ms. Default 10 s. */
  readonly timeoutMs: number;
}

export interface ApprovalStep extends StepBase<'approval'> {
  /** Template. */
  readonly message?: string;
  /** How long the approval stays open, in ms. Default 24 h. */
  readonly expiresMs: number;
}

export interface DelayStep extends StepBase<'delay'> {
  readonly durationMs: number;
}

/** `send` and `read` (the chain steps, CONTRACT 8.1, 8.5): their fields stay templates until an attempt renders them. */
export interface ChainStep extends StepBase<'send' | 'read'> {
  /** The step's fields as configured (templates unrendered), `timeout` aside. */
  readonly fields: Readonly<Record<string, Json>>;
  /** send: not landed by then after its first broadcast, it is cancelled and settles `expired`; read: per call. In ms. */
  readonly timeoutMs: number;
}

export const DEFAULT_SEND_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_READ_TIMEOUT_MS = 10_000;

/**
 * Parks the run until a log of `event` from one of `addresses` in a block after the head at the step's start has
 * `confirmations` and satisfies `where` (CONTRACT 8.6); its output is that log, decoded as a trigger's payload.
 */
export interface WaitEventStep extends StepBase<'wait_event'> {
  readonly network: string;
  /** Lowercase 0x-hex. */
  readonly addresses: readonly string[];
  readonly event: string;
  /** CEL over the decoded log (`log`) and the run's context; a bool. None: the first log matches. */
  readonly where?: string;
  readonly confirmations: number;
  /** No matching log by then: the step fails `event_timeout`. In ms. Default 1 h. */
  readonly timeoutMs: number;
}

export const DEFAULT_WAIT_EVENT_TIMEOUT_MS = 60 * 60_000;

export type StepDefinition = HttpCallStep | ApprovalStep | DelayStep | ChainStep | WaitEventStep;

/** Error kinds of failed steps and runs (CONTRACT 8.2; stable). */
export type EngineErrorKind =
  | 'http_status' | 'http_timeout' | 'http_error' | 'expression_error' | 'budget_exceeded' | 'simulation_failed'
  | 'broadcast_failed' | 'reverted' | 'tx_dropped' | 'tx_expired' | 'approval_rejected' | 'approval_expired'
  | 'cancelled' | 'definition_changed' | 'engine_crash' | 'unsupported_step' | 'read_failed' | 'event_timeout' | 'reorged';

/** Never tried again, whatever the step's retry policy. */
export const NON_RETRYABLE: ReadonlySet<string> = new Set([
  'budget_exceeded', 'approval_rejected', 'approval_expired', 'reverted', 'expression_error', 'cancelled', 'unsupported_step',
  // A send that was broadcast is never sent again by a retry: it settled, and paid or not.
  'tx_expired', 'tx_dropped',
  // Another attempt would wait for a log after its own start: the one that was waited for is not coming.
  'event_timeout',
]);

export const DEFAULT_BACKOFF_MS = 1_000;
export const DEFAULT_MAX_BACKOFF_MS = 60_000;
export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
export const DEFAULT_APPROVAL_EXPIRES_MS = 24 * 60 * 60 * 1000;

/** Default attempts by step type: steps that only read are tried 3 times, the others once. */
export function defaultAttempts(type: StepType): number {
  return type === 'http_call' || type === 'read' ? 3 : 1;
}

/** The wait before attempt `next` (2, 3, …): backoff doubled per earlier retry, capped. */
export function retryDelayMs(policy: RetryPolicy, next: number): number {
  const doublings = Math.max(0, next - 2);
  return Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.min(doublings, 40));
}

/** Step run id (CONTRACT 8.2): `<run_id>.<step_id>`. */
export function stepRunId(runId: string, stepId: string): string {
  return `${runId}.${stepId}`;
}
