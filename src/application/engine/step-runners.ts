import { inject, injectable, optional } from 'inversify';
import type { ApprovalStep, ChainStep, DelayStep, HttpCallStep, StepDefinition } from '../../domain/engine/workflow';
import type { Json } from '../../domain/journal/journal-event';
import { REDACTED } from '../../domain/redactor';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { ExactJson } from '../ports/exact-json';
import { Expressions } from '../ports/expressions';
import { HttpClient, HttpFailure } from '../ports/http-client';
import { ListBudgets } from '../spend/list-budgets.use-case';
import { approvalBudgetNote } from './approval-budget-note';
import { ReadStep } from './read-step';
import { SendStep } from './send-step';
import { WaitEventStepRunner } from './wait-event-step';
import { renderString, renderTree } from './templates';
import type { Attempted, AttemptContext, PreparedAttempt } from './attempt';

export type { Attempted, AttemptContext, PreparedAttempt } from './attempt';

/** A response body kept in a step's output: JSON when it is JSON, else text, cut at this many characters. */
const MAX_BODY_CHARS = 64 * 1024;
/** The most of an http_call's response body that is read at all (CONTRACT 8.7); beyond, the step fails. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Sent by every http_call, `<step_run_id>:<attempt>`, so the far end can tell a repeat from a new call. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * Runs one attempt of each step type that needs no chain (CONTRACT 8.1, 8.2). Rendering happens in `prepare`
 * (an expression failing there fails the step with `expression_error` before anything is called).
 */
@injectable()
export class StepRunners {
  constructor(
    @inject(HttpClient) private readonly http: HttpClient,
    @inject(Expressions) private readonly expressions: Expressions,
    @inject(Clock) private readonly clock: Clock,
    @inject(SendStep) @optional() private readonly sends?: SendStep,
    @inject(ReadStep) @optional() private readonly reads?: ReadStep,
    /** Response bodies keep their big numbers exact (CONTRACT 8.8); without it (tests), JSON.parse. */
    @inject(ExactJson) @optional() private readonly json?: ExactJson,
    /** Budget headroom for an approval's note on the send it guards; without it (tests), no note. */
    @inject(ListBudgets) @optional() private readonly budgets?: ListBudgets,
    @inject(WaitEventStepRunner) @optional() private readonly waits?: WaitEventStepRunner,
  ) {}

  /** A `wait_event` step whose run was claimed again: what its wait says now (undefined: it has none, run it again). */
  resumeWait(step: StepDefinition, ctx: AttemptContext): Promise<Attempted | undefined> {
    if (step.type !== 'wait_event' || !this.waits) return Promise.resolve(undefined);
    return this.waits.resume(step, ctx);
  }

  /**
   * A send step found running (parked on its send, or its process died mid-step): its send is looked at again, never
   * sent anew (CONTRACT 8.5). Undefined when the attempt had queued no send: the step then runs as usual.
   */
  resumeSend(step: StepDefinition, ctx: AttemptContext, owner: string): Promise<Attempted | undefined> {
    if (step.type !== 'send' || !this.sends) return Promise.resolve(undefined);
    return this.sends.resume(step, ctx, owner);
  }

  /** @throws ExpressionError */
  prepare(step: StepDefinition, ctx: AttemptContext): PreparedAttempt {
    switch (step.type) {
      case 'http_call':
        return this.httpCall(step, ctx);
      case 'approval':
        return this.approval(step, ctx);
      case 'delay':
        return this.delay(step, ctx);
      case 'send':
        if (this.sends) return this.sends.prepare(step as ChainStep, ctx);
        return this.unsupported(step);
      case 'read':
        if (this.reads) return this.reads.prepare(step as ChainStep, ctx);
        return this.unsupported(step);
      case 'wait_event':
        if (this.waits) return this.waits.prepare(step, ctx);
        return this.unsupported(step);
      default:
        return this.unsupported(step);
    }
  }

  private unsupported(step: StepDefinition): PreparedAttempt {
    switch (step.type) {
      default:
        return {
          input: null,
          sideEffects: false,
          run: async () => ({ kind: 'failed', error: { kind: 'unsupported_step', message: `${step.type} steps are not run by this engine version` } }),
        };
    }
  }

  private httpCall(step: HttpCallStep, ctx: AttemptContext): PreparedAttempt {
    const url = renderString(step.url, this.expressions, ctx.scope);
    const body = step.body === undefined ? undefined : renderTree(step.body, this.expressions, ctx.scope);
    const bodyText = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { ...step.headers };
    if (bodyText !== undefined && typeof body !== 'string') headers['content-type'] ??= 'application/json';
    // Config load refuses a configured Idempotency-Key (a secret is one fixed value for every run); the engine's own is
    // set regardless of the case of any that slipped through, so exactly one goes out.
    for (const name of Object.keys(headers)) if (name.toLowerCase() === IDEMPOTENCY_HEADER.toLowerCase()) delete headers[name];
    headers[IDEMPOTENCY_HEADER] = `${ctx.stepRunId}:${ctx.attempt}`;
    // Every configured header is secret-typed (a reference, never a literal): with any, redirects stay on this origin.
    const redirects = Object.keys(step.headers).length > 0 ? 'same-origin' as const : 'follow' as const;
    // The journal holds the header names only: their values are secrets and never stored.
    const input: Json = {
      method: step.method, url, timeout_ms: step.timeoutMs,
      ...(Object.keys(step.headers).length ? { headers: Object.fromEntries(Object.keys(step.headers).map((h) => [h, REDACTED])) } : {}),
      ...(body !== undefined ? { body } : {}),
    };
    return {
      input,
      sideEffects: true,
      run: async () => {
        try {
          const res = await this.http.request({
            method: step.method, url, headers, body: bodyText, timeoutMs: step.timeoutMs, maxBodyBytes: MAX_RESPONSE_BYTES, redirects,
          });
          const output: Json = { status: res.status, body: responseBody(res.contentType, res.body, this.json) };
          if (res.status >= 200 && res.status < 300) return { kind: 'succeeded', output };
          const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
          return { kind: 'failed', error: { kind: 'http_status', message: `${step.method} answered HTTP ${res.status}` }, output, retryable };
        } catch (err) {
          if (err instanceof HttpFailure && err.reason === 'timeout') {
            return { kind: 'failed', error: { kind: 'http_timeout', message: `${step.method} got no answer within ${step.timeoutMs} ms` } };
          }
          // The far end answered and acted: another attempt (a new key) would repeat the call for the same outcome.
          if (err instanceof HttpFailure && err.reason === 'too_large') {
            return { kind: 'failed', error: { kind: 'http_error', message: 'response too large' }, retryable: false };
          }
          if (err instanceof HttpFailure && err.reason === 'redirect_refused') {
            return { kind: 'failed', error: { kind: 'http_error', message: `${step.method} ${err.message}` }, retryable: false };
          }
          return { kind: 'failed', error: { kind: 'http_error', message: `${step.method} failed: ${err instanceof Error ? err.message : String(err)}` } };
        }
      },
    };
  }

  private approval(step: ApprovalStep, ctx: AttemptContext): PreparedAttempt {
    const message = step.message === undefined ? undefined : renderString(step.message, this.expressions, ctx.scope);
    const expiresAt = this.clock.now() + step.expiresMs;
    const approvalId = ctx.attempt === 1 ? ctx.stepRunId : `${ctx.stepRunId}.${ctx.attempt}`;
    return {
      input: { ...(message !== undefined ? { message } : {}), expires_at: toIso(expiresAt) },
      sideEffects: false,
      run: async () => {
        const session = sessionOf(ctx);
        if (session !== 'live') return this.approvedBySession(ctx, session, approvalId, message, expiresAt);
        const note = this.budgets && ctx.upcoming ? await approvalBudgetNote(ctx.upcoming, ctx.scope, this.expressions, this.budgets) : undefined;
        const asked = note === undefined ? message : message === undefined ? note : `${message} ${note}`;
        return {
          kind: 'parked',
          events: [{
            type: 'approval.requested', at: toIso(this.clock.now()), approval_id: approvalId, run_id: ctx.runId, step_run_id: ctx.stepRunId,
            ...(asked !== undefined ? { message: asked } : {}), expires_at: toIso(expiresAt),
          }],
          wait: { kind: 'approval', dueAt: expiresAt, expiresAt },
        };
      },
    };
  }

  /**
   * In a replay or test session nobody is there to decide (CONTRACT 8.6): the approval is requested and decided
   * `approved` by the session's kind at once, so the run shows what would have followed an approval.
   */
  private approvedBySession(ctx: AttemptContext, by: string, approvalId: string, message: string | undefined, expiresAt: number): Attempted {
    const at = toIso(this.clock.now());
    return {
      kind: 'succeeded', output: { decision: 'approved', by, reason: null },
      events: [
        { type: 'approval.requested', at, approval_id: approvalId, run_id: ctx.runId, step_run_id: ctx.stepRunId, ...(message !== undefined ? { message } : {}), expires_at: toIso(expiresAt) },
        { type: 'approval.decided', at, approval_id: approvalId, decision: 'approved', by },
      ],
    };
  }

  /** A delay parks the run until it is due; in a replay or test session it finishes at once (CONTRACT 8.6). */
  private delay(step: DelayStep, ctx: AttemptContext): PreparedAttempt {
    const now = this.clock.now();
    const dueAt = now + step.durationMs;
    const session = sessionOf(ctx);
    return {
      input: { duration_ms: step.durationMs, due_at: toIso(dueAt) },
      sideEffects: false,
      run: async () => (session === 'live'
        ? { kind: 'parked', events: [], wait: { kind: 'delay', dueAt, expiresAt: null } }
        : { kind: 'succeeded', output: { waited_until: toIso(now), not_waited: `${session} session` } }),
    };
  }
}

/** The run's session kind from its expression context (`live` when it names none). */
function sessionOf(ctx: AttemptContext): string {
  const session = (ctx.scope.run as { session?: unknown } | undefined)?.session;
  return typeof session === 'string' ? session : 'live';
}

/** JSON bodies as JSON, others as text; cut so that one answer cannot swell the journal. */
function responseBody(contentType: string, text: string, json?: ExactJson): Json {
  if (/\bjson\b/i.test(contentType) && text.length <= MAX_BODY_CHARS) {
    try {
      return json ? json.parse(text) : (JSON.parse(text) as Json);
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…` : text;
}
