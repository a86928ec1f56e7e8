/**
 * Object mothers for journal events (CONTRACT section 3): each builder has readable defaults, so a test
 * names only what it is about. `aRun({...})` gives the whole event list of one run.
 *
 * Times are RFC 3339 UTC. A run's events are spaced one second apart from its `at`.
 */
import type {
  ErrorInfo,
  Json,
  JournalEvent,
  RunEndStatus,
  SendOutcome,
  SessionKind,
  WaitKind,
} from '../../src/domain/journal/journal-event';

/** A fixed anchor time for tests that do not care about "now". */
export const T0 = Date.parse('2026-03-01T12:00:00.000Z');

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Epoch ms (or an RFC 3339 text, or a Date) as RFC 3339 UTC with milliseconds. */
export function iso(at: number | string | Date): string {
  if (typeof at === 'string') return new Date(Date.parse(at)).toISOString();
  return new Date(typeof at === 'number' ? at : at.getTime()).toISOString();
}

/** A 0x-prefixed 32-byte hash derived from a label, so that tests can name hashes readably. */
export function aTxHash(label: string): string {
  const hex = Buffer.from(label, 'utf8').toString('hex');
  return `0x${hex.padEnd(64, '0').slice(0, 64)}`;
}

export interface StepSpec {
  readonly stepId: string;
  readonly stepType?: string;
  readonly stepRunId?: string;
  readonly input?: Json;
  readonly output?: Json;
  /** How the step ended; default `succeeded` (or `failed` when `error` is given). */
  readonly status?: 'succeeded' | 'failed' | 'skipped';
  readonly error?: ErrorInfo;
  /** Failed attempts before the last one (a retried step); each fails with `retryError`. */
  readonly failedAttempts?: number;
  readonly retryError?: ErrorInfo;
  readonly simulation?: { ok: boolean; gasEstimate?: string; revertReason?: string };
  readonly budgetChecks?: readonly { budget: string; spentWei: string; capWei: string; allowed: boolean }[];
  /** Leave the step started but not finished (a run parked on it, say). */
  readonly unfinished?: boolean;
}

export interface SendSpec {
  readonly sendId?: string;
  /** The step that sends; default a `send` step with id `submit_tx`. */
  readonly stepId?: string;
  readonly network?: string;
  readonly chainId?: number;
  readonly relayer?: string;
  readonly to?: string;
  readonly valueWei?: string;
  readonly idempotencyKey?: string;
  /** How far the send got; default `settled`. */
  readonly status?: 'queued' | 'parked' | 'submitted' | 'settled';
  readonly txHash?: string;
  readonly outcome?: SendOutcome;
  readonly receipt?: { gasUsed: string; effectiveGasPrice?: string; gasPrice?: string; l1Fee?: string };
  readonly simulation?: StepSpec['simulation'];
  readonly budgetChecks?: StepSpec['budgetChecks'];
}

export interface ApprovalSpec {
  readonly approvalId?: string;
  readonly message?: string;
  readonly expiresAt?: string;
  /** Absent: the approval stays pending. */
  readonly decision?: 'approved' | 'rejected' | 'expired';
  readonly by?: string;
  readonly reason?: string;
}

export interface ParkSpec {
  readonly waitKind: WaitKind;
  readonly dueAt?: string;
  readonly expiresAt?: string;
  /** Park on this step run (default: the last step of the run). */
  readonly stepRunId?: string;
}

export interface ReorgSpec {
  readonly reorgId?: string;
  readonly block?: number;
  readonly removedBlockHash?: string;
  readonly depth?: number;
  readonly steps?: readonly { stepId: string; status?: string; output?: Json; error?: ErrorInfo }[];
}

export interface RunSpec {
  readonly runId: string;
  readonly workflow?: string;
  /** When the run started (its created_at): epoch ms, RFC 3339 text or Date. Default T0. */
  readonly at?: number | string | Date;
  readonly session?: SessionKind;
  readonly sessionId?: string;
  readonly replayOf?: string;
  readonly trigger?: { kind: string; summary?: string; payload?: Json };
  readonly conditions?: readonly { name: string; passed: boolean; detail?: Json }[];
  readonly network?: string;
  readonly contract?: string;
  readonly block?: number;
  /** Steps run before any send; default one succeeded `http_call` step `fetch_quote`. */
  readonly steps?: readonly StepSpec[];
  readonly send?: SendSpec;
  readonly approval?: ApprovalSpec;
  /** The run fails (status `failed` unless `status` says otherwise) with this error kind. */
  readonly failure?: { kind: string; message?: string };
  /** The run parks (status `waiting`) instead of finishing. */
  readonly park?: ParkSpec;
  /**
   * How the run ends; default `succeeded`, or `failed` with `failure` or when a step failed (then the
   * run.finished carries no error of its own). `running`: no run.finished.
   */
  readonly status?: RunEndStatus | 'running';
  readonly reorg?: ReorgSpec;
}

/** A default step: fetch a quote over HTTP. */
export const FETCH_STEP: StepSpec = {
  stepId: 'fetch_quote',
  stepType: 'http_call',
  input: { url: 'https://api.example.com/quote' },
  output: { status: 200, body: { price: '1800' } },
};

/**
 * The whole event list of one run: run.started (+ conditions), its steps (with retries, simulation and
 * budget checks), an optional approval, an optional send (queued, submitted, settled), then either a park,
 * a run.finished (succeeded or failed), or nothing (still running); an optional reorg response after.
 */
export function aRun(spec: RunSpec): JournalEvent[] {
  const start = spec.at === undefined ? T0 : typeof spec.at === 'number' ? spec.at : Date.parse(iso(spec.at));
  let tick = 0;
  const next = (): string => iso(start + tick++ * SECOND);
  const runId = spec.runId;
  const events: JournalEvent[] = [];

  events.push({
    type: 'run.started',
    at: next(),
    run_id: runId,
    workflow: spec.workflow ?? 'payouts',
    session: spec.session ?? (spec.sessionId ? 'replay' : 'live'),
    ...(spec.sessionId ? { session_id: spec.sessionId } : {}),
    trigger: spec.trigger ?? { kind: 'cron', summary: 'schedule 0 * * * *' },
    ...(spec.network ? { network: spec.network } : {}),
    ...(spec.contract ? { contract: spec.contract } : {}),
    ...(spec.block !== undefined ? { block: spec.block } : {}),
    ...(spec.replayOf ? { replay_of: spec.replayOf } : {}),
  });
  if (spec.conditions) events.push({ type: 'run.conditions', at: next(), run_id: runId, results: spec.conditions });

  let lastStepRunId: string | undefined;
  const steps = spec.steps ?? [FETCH_STEP];
  for (const step of steps) {
    const stepRunId = step.stepRunId ?? `${runId}.${step.stepId}`;
    lastStepRunId = stepRunId;
    const base = { run_id: runId, step_run_id: stepRunId };
    const failed = step.failedAttempts ?? 0;
    for (let attempt = 1; attempt <= failed + 1; attempt++) {
      events.push({
        type: 'step.started', at: next(), ...base, step_id: step.stepId, step_type: step.stepType ?? 'http_call', attempt,
        ...(attempt === 1 && step.input !== undefined ? { input: step.input } : {}),
      });
      if (attempt === 1) {
        if (step.simulation) events.push(aSimulation(next(), base, step.simulation));
        for (const check of step.budgetChecks ?? []) events.push(aBudgetCheck(next(), base, check));
      }
      if (attempt <= failed) {
        events.push({ type: 'step.finished', at: next(), ...base, status: 'failed', error: step.retryError ?? { kind: 'http_error', message: 'HTTP 503' } });
      }
    }
    if (step.unfinished) continue;
    const status = step.status ?? (step.error ? 'failed' : 'succeeded');
    events.push({
      type: 'step.finished', at: next(), ...base, status,
      ...(step.output !== undefined ? { output: step.output } : {}),
      ...(step.error ? { error: step.error } : {}),
    });
  }

  if (spec.approval) {
    const a = spec.approval;
    const approvalId = a.approvalId ?? `${runId}.approval`;
    events.push({
      type: 'approval.requested', at: next(), approval_id: approvalId, run_id: runId, step_run_id: spec.send ? `${runId}.${spec.send.stepId ?? 'submit_tx'}` : lastStepRunId ?? `${runId}.approve`,
      ...(a.message !== undefined ? { message: a.message } : { message: 'approve the payout' }),
      ...(a.expiresAt ? { expires_at: a.expiresAt } : {}),
    });
    if (a.decision) {
      events.push({
        type: 'approval.decided', at: next(), approval_id: approvalId, decision: a.decision,
        ...(a.by ? { by: a.by } : { by: 'alice' }), ...(a.reason ? { reason: a.reason } : {}),
      });
    }
  }

  if (spec.send) {
    const s = spec.send;
    const stepId = s.stepId ?? 'submit_tx';
    const stepRunId = `${runId}.${stepId}`;
    lastStepRunId = stepRunId;
    const sendId = s.sendId ?? `${runId}.send`;
    const base = { run_id: runId, step_run_id: stepRunId };
    const network = s.network ?? spec.network ?? 'sepolia';
    const txHash = s.txHash ?? aTxHash(runId);
    const status = s.status ?? 'settled';
    events.push({ type: 'step.started', at: next(), ...base, step_id: stepId, step_type: 'send', attempt: 1, input: { to: s.to ?? '0x000000000000000000000000000000000000beef', value_wei: s.valueWei ?? '1000' } });
    if (s.simulation) events.push(aSimulation(next(), base, s.simulation));
    for (const check of s.budgetChecks ?? []) events.push(aBudgetCheck(next(), base, check));
    events.push({
      type: 'send.queued', at: next(), ...base, send_id: sendId, network, chain_id: s.chainId ?? 11155111,
      relayer: s.relayer ?? 'ops', to: s.to ?? '0x000000000000000000000000000000000000beef', value_wei: s.valueWei ?? '1000',
      idempotency_key: s.idempotencyKey ?? `${runId}:${stepId}`,
    });
    if (status === 'parked') events.push({ type: 'send.parked', at: next(), send_id: sendId, reason: 'nonce gap' });
    if (status === 'submitted' || status === 'settled') events.push({ type: 'send.submitted', at: next(), send_id: sendId, tx_hash: txHash, nonce: 7 });
    if (status === 'settled') {
      events.push({
        type: 'send.settled', at: next(), send_id: sendId, outcome: s.outcome ?? 'confirmed', tx_hash: txHash,
        receipt: s.receipt ?? { gasUsed: '21000', effectiveGasPrice: '1000000000' },
      });
    }
    if (status === 'settled') {
      const ok = (s.outcome ?? 'confirmed') === 'confirmed';
      events.push({
        type: 'step.finished', at: next(), ...base, status: ok ? 'succeeded' : 'failed',
        ...(ok ? { output: { tx_hash: txHash } } : { error: { kind: 'tx_reverted', message: `send ${sendId} ${s.outcome}` } }),
      });
    }
  }

  if (spec.park) {
    events.push({
      type: 'run.parked', at: next(), run_id: runId, wait_kind: spec.park.waitKind,
      ...(spec.park.stepRunId ?? lastStepRunId ? { step_run_id: spec.park.stepRunId ?? lastStepRunId } : {}),
      ...(spec.park.dueAt ? { due_at: spec.park.dueAt } : {}),
      ...(spec.park.expiresAt ? { expires_at: spec.park.expiresAt } : {}),
    });
  } else if (spec.status !== 'running') {
    const stepFailed = steps.some((st) => !st.unfinished && (st.status ?? (st.error ? 'failed' : 'succeeded')) === 'failed');
    const status = spec.status ?? (spec.failure || stepFailed ? 'failed' : 'succeeded');
    events.push({
      type: 'run.finished', at: next(), run_id: runId, status,
      ...(spec.failure ? { error: { kind: spec.failure.kind, message: spec.failure.message ?? `${spec.failure.kind} in ${runId}` } } : {}),
    });
  }

  if (spec.reorg) {
    const r = spec.reorg;
    const reorgId = r.reorgId ?? `${runId}.reorg`;
    events.push({
      type: 'reorg.response', at: next(), reorg_id: reorgId, run_id: runId, workflow: spec.workflow ?? 'payouts',
      network: spec.network ?? spec.send?.network ?? 'sepolia', block: r.block ?? spec.block ?? 7_000_000,
      ...(r.removedBlockHash ? { removed_block_hash: r.removedBlockHash } : {}), ...(r.depth !== undefined ? { depth: r.depth } : {}),
    });
    for (const step of r.steps ?? [{ stepId: 'recheck_balance' }]) {
      events.push({
        type: 'reorg.step', at: next(), reorg_id: reorgId, step_id: step.stepId, status: step.status ?? 'succeeded',
        ...(step.output !== undefined ? { output: step.output } : {}), ...(step.error ? { error: step.error } : {}),
      });
    }
  }
  return events;
}

function aSimulation(at: string, base: { run_id: string; step_run_id: string }, sim: NonNullable<StepSpec['simulation']>): JournalEvent {
  return {
    type: 'step.simulated', at, ...base, ok: sim.ok,
    ...(sim.gasEstimate ? { gas_estimate: sim.gasEstimate } : {}),
    ...(sim.revertReason ? { revert_reason: sim.revertReason } : {}),
  };
}

function aBudgetCheck(at: string, base: { run_id: string; step_run_id: string }, c: NonNullable<StepSpec['budgetChecks']>[number]): JournalEvent {
  return { type: 'budget.checked', at, ...base, budget: c.budget, spent_wei: c.spentWei, cap_wei: c.capWei, allowed: c.allowed };
}

/** Many plain runs, `count` of them, one `spacingMs` apart going back from `newest`, ids `${prefix}-NNNN`. */
export function manyRuns(count: number, options: { prefix?: string; newest?: number; spacingMs?: number; workflow?: string } = {}): JournalEvent[] {
  const prefix = options.prefix ?? 'run';
  const newest = options.newest ?? T0;
  const spacing = options.spacingMs ?? MINUTE;
  const events: JournalEvent[] = [];
  for (let i = 0; i < count; i++) {
    events.push(...aRun({ runId: `${prefix}-${String(i).padStart(4, '0')}`, at: newest - i * spacing, workflow: options.workflow }));
  }
  return events;
}

/** Events as NDJSON text (one event a line), the format of `chainflow journal import`. */
export function toNdjson(events: readonly JournalEvent[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

/** epoch ms, RFC 3339 text or Date, as epoch ms. */
function msOf(at: number | string | Date): number {
  return typeof at === 'number' ? at : Date.parse(iso(at));
}

export interface SessionSpec {
  readonly sessionId: string;
  readonly kind?: 'replay' | 'test';
  readonly workflow?: string;
  /** session.started time; default T0. */
  readonly at?: number | string | Date;
  /** session.finished time; absent: the session is still open. */
  readonly finishedAt?: number | string | Date;
  readonly fromBlock?: number;
  readonly toBlock?: number;
  readonly note?: string;
}

/** A replay / test session: session.started, and session.finished when `finishedAt` is given. */
export function aSession(spec: SessionSpec): JournalEvent[] {
  const events: JournalEvent[] = [{
    type: 'session.started', at: iso(spec.at ?? T0), session_id: spec.sessionId, kind: spec.kind ?? 'replay',
    workflow: spec.workflow ?? 'payouts',
    ...(spec.fromBlock !== undefined ? { from_block: spec.fromBlock } : {}),
    ...(spec.toBlock !== undefined ? { to_block: spec.toBlock } : {}),
    ...(spec.note !== undefined ? { note: spec.note } : {}),
  }];
  if (spec.finishedAt !== undefined) events.push({ type: 'session.finished', at: iso(spec.finishedAt), session_id: spec.sessionId });
  return events;
}

export interface WorkflowStateSpec {
  readonly workflow: string;
  readonly at?: number | string | Date;
  readonly paused?: boolean;
  readonly trigger?: string;
  readonly network?: string;
  readonly cursorBlock?: number;
  readonly headBlock?: number;
}

/** One workflow.state event (the engine's word on a workflow's trigger state); only the given fields. */
export function aWorkflowState(spec: WorkflowStateSpec): JournalEvent {
  return {
    type: 'workflow.state', at: iso(spec.at ?? T0), workflow: spec.workflow,
    ...(spec.paused !== undefined ? { paused: spec.paused } : {}),
    ...(spec.trigger !== undefined ? { trigger: spec.trigger } : {}),
    ...(spec.network !== undefined ? { network: spec.network } : {}),
    ...(spec.cursorBlock !== undefined ? { cursor_block: spec.cursorBlock } : {}),
    ...(spec.headBlock !== undefined ? { head_block: spec.headBlock } : {}),
  };
}

/** A bare run of an exact duration: run.started, then run.finished `durationMs` later (no steps). */
export function aTimedRun(spec: {
  readonly runId: string;
  readonly workflow?: string;
  readonly at?: number | string | Date;
  readonly durationMs: number;
  readonly status?: RunEndStatus;
  /** The error kind the run.finished carries. */
  readonly errorKind?: string;
}): JournalEvent[] {
  const start = msOf(spec.at ?? T0);
  return [
    { type: 'run.started', at: iso(start), run_id: spec.runId, workflow: spec.workflow ?? 'payouts', session: 'live', trigger: { kind: 'cron' } },
    {
      type: 'run.finished', at: iso(start + spec.durationMs), run_id: spec.runId, status: spec.status ?? 'succeeded',
      ...(spec.errorKind ? { error: { kind: spec.errorKind, message: `${spec.errorKind} in ${spec.runId}` } } : {}),
    },
  ];
}

/** A run.parked event for a run already started (e.g. one left `running`, or resumed before). */
export function aPark(runId: string, at: number | string | Date, park: ParkSpec): JournalEvent {
  return {
    type: 'run.parked', at: iso(at), run_id: runId, wait_kind: park.waitKind,
    ...(park.stepRunId ? { step_run_id: park.stepRunId } : {}),
    ...(park.dueAt ? { due_at: park.dueAt } : {}),
    ...(park.expiresAt ? { expires_at: park.expiresAt } : {}),
  };
}

/** A run.resumed event. */
export function aResume(runId: string, at: number | string | Date): JournalEvent {
  return { type: 'run.resumed', at: iso(at), run_id: runId };
}

/** A run.finished event for a run already started. */
export function aFinish(runId: string, at: number | string | Date, status: RunEndStatus = 'succeeded', errorKind?: string): JournalEvent {
  return { type: 'run.finished', at: iso(at), run_id: runId, status, ...(errorKind ? { error: { kind: errorKind } } : {}) };
}
