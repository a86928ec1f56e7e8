/**
 * Object mothers for engine workflow definitions (CONTRACT 8.1), with the defaults the config loader applies.
 */
import type {
  ChainStep,
  ApprovalStep, DelayStep, HttpCallStep, RetryPolicy, StepDefinition, TriggerDefinition, WorkflowDefinition,
} from '../../src/domain/engine/workflow';

const once: RetryPolicy = { attempts: 1, backoffMs: 1000, maxBackoffMs: 60_000 };

export function aWorkflow(overrides: Partial<WorkflowDefinition> & { steps: StepDefinition[] }): WorkflowDefinition {
  return {
    name: 'payouts', trigger: { kind: 'manual' } as TriggerDefinition, paused: false, budgets: [], conditions: [], onReorg: [], ...overrides,
  };
}

export function anHttpCall(id: string, overrides: Partial<HttpCallStep> = {}): HttpCallStep {
  return {
    id, type: 'http_call', method: 'GET', url: `https://api.example/${id}`, headers: {}, timeoutMs: 10_000, skipInTest: false,
    retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 60_000 }, ...overrides,
  };
}

export function anApproval(id: string, overrides: Partial<ApprovalStep> = {}): ApprovalStep {
  return { id, type: 'approval', expiresMs: 3_600_000, skipInTest: false, retry: once, ...overrides };
}

export function aDelay(id: string, durationMs: number, overrides: Partial<DelayStep> = {}): DelayStep {
  return { id, type: 'delay', durationMs, skipInTest: false, retry: once, ...overrides };
}

/** A send step of relayer `ops` paying `value` to `to` (templates allowed), waiting for its receipt unless told. */
export function aSend(id: string, fields: Record<string, unknown> = {}, overrides: Partial<ChainStep> = {}): ChainStep {
  return {
    id, type: 'send', fields: { relayer: 'ops', to: '0x000000000000000000000000000000000000beef', value: '1000', ...fields } as ChainStep['fields'],
    timeoutMs: 600_000, skipInTest: false, retry: once, ...overrides,
  };
}

/** A read step: a view call on network `sepolia`. */
export function aRead(id: string, to: string, fn: string, args: unknown[] = [], overrides: Partial<ChainStep> = {}): ChainStep {
  return {
    id, type: 'read', fields: { network: 'sepolia', to, call: { function: fn, args } } as ChainStep['fields'], timeoutMs: 10_000, skipInTest: false,
    retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 60_000 }, ...overrides,
  };
}
