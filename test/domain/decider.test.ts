/**
 * The decider (CONTRACT 8.2, 8.7): what a run's journal says so far, the definition it goes on with and now -> the
 * next move. Pure, so each case is a table row: no engine, no storage, no clock.
 */
import { decide, type Circumstances, type Evaluate, type Move, type Walk } from '../../src/domain/engine/decider';
import { runProgress } from '../../src/domain/engine/run-progress';
import type { StepDefinition } from '../../src/domain/engine/workflow';
import type { ErrorInfo, JournalEvent } from '../../src/domain/journal/journal-event';
import { aDelay, anApproval, anHttpCall, aSend, aWorkflow } from '../mothers/workflows';
import { iso, MINUTE, SECOND, T0 } from '../mothers/journal-events';

const RUN = 'r1';
const srid = (step: string): string => `${RUN}.${step}`;

/** The events of run r1, each at T0 unless told. */
const j = {
  started: (session: 'live' | 'test' = 'live'): JournalEvent => ({ type: 'run.started', at: iso(T0), run_id: RUN, workflow: 'payouts', session, trigger: { kind: 'manual' } }),
  conditions: (): JournalEvent => ({ type: 'run.conditions', at: iso(T0), run_id: RUN, results: [] }),
  stepStarted: (step: StepDefinition, attempt = 1): JournalEvent => ({ type: 'step.started', at: iso(T0), run_id: RUN, step_run_id: srid(step.id), step_id: step.id, step_type: step.type, attempt }),
  succeeded: (step: string): JournalEvent => ({ type: 'step.finished', at: iso(T0), run_id: RUN, step_run_id: srid(step), status: 'succeeded', output: {} }),
  failed: (step: string, error: ErrorInfo): JournalEvent => ({ type: 'step.finished', at: iso(T0), run_id: RUN, step_run_id: srid(step), status: 'failed', error }),
  parked: (step: string, kind: 'delay' | 'approval' | 'tx', dueAt: number | null, expiresAt?: number): JournalEvent => ({
    type: 'run.parked', at: iso(T0), run_id: RUN, wait_kind: kind, step_run_id: srid(step),
    ...(dueAt !== null ? { due_at: iso(dueAt) } : {}), ...(expiresAt !== undefined ? { expires_at: iso(expiresAt) } : {}),
  }),
  resumed: (): JournalEvent => ({ type: 'run.resumed', at: iso(T0), run_id: RUN }),
  approvalRequested: (step: string, expiresAt: number): JournalEvent => ({ type: 'approval.requested', at: iso(T0), approval_id: srid(step), run_id: RUN, step_run_id: srid(step), expires_at: iso(expiresAt) }),
  approvalDecided: (step: string, decision: 'approved' | 'rejected', by: string): JournalEvent => ({ type: 'approval.decided', at: iso(T0), approval_id: srid(step), decision, by }),
  finished: (): JournalEvent => ({ type: 'run.finished', at: iso(T0), run_id: RUN, status: 'succeeded' }),
};

/** Expressions by their source text; any other is an error, as an unknown identifier would be. */
function evaluating(values: Record<string, boolean | { error: string }> = {}): Evaluate {
  return (expression) => values[expression] ?? { error: `unknown expression ${expression}` };
}

const http = anHttpCall('quote', { retry: { attempts: 3, backoffMs: SECOND, maxBackoffMs: MINUTE } });
const notify = anHttpCall('notify');
const approve = anApproval('approve');
const pay = aSend('pay');
const cool = aDelay('cool', 10 * MINUTE);
const payouts = (...steps: StepDefinition[]): Walk => aWorkflow({ steps });

interface Row {
  readonly name: string;
  readonly events: JournalEvent[];
  readonly walk: Walk;
  readonly now?: number;
  readonly circumstances?: Partial<Circumstances>;
  readonly move: Record<string, unknown>;
}

function next(row: Omit<Row, 'name' | 'move'>): Move {
  const progress = runProgress(row.events)!;
  return decide(progress, row.walk, row.now ?? T0, { evaluate: evaluating(), ...row.circumstances });
}

const err = (kind: string, message = `${kind} happened`): ErrorInfo => ({ kind, message });
const startOf = (step: StepDefinition, attempt: number) => ({ kind: 'start_step', step: { id: step.id }, stepRunId: srid(step.id), attempt });
const endOf = (status: string, error?: ErrorInfo, events: Record<string, unknown>[] = []) => ({ kind: 'end', status, events, ...(error ? { error } : {}) });

describe('decide: walking the steps', () => {
  const rows: Row[] = [
    { name: 'a new run starts its first step, attempt 1', events: [j.started()], walk: payouts(http, notify), move: startOf(http, 1) },
    { name: 'a step done is passed over', events: [j.started(), j.stepStarted(http), j.succeeded('quote')], walk: payouts(http, notify), move: startOf(notify, 1) },
    { name: 'all steps done: the run ends succeeded', events: [j.started(), j.stepStarted(http), j.succeeded('quote')], walk: payouts(http), move: endOf('succeeded') },
    { name: 'a run that ended is only taken off the schedule', events: [j.started(), j.finished()], walk: payouts(http), move: { kind: 'remove' } },
    {
      name: 'the same decider walks any list of steps (an on_reorg list)',
      events: [j.started()], walk: { name: 'payouts', conditions: [], steps: [notify] }, move: startOf(notify, 1),
    },
    {
      name: 'a step whose if is false finishes skipped, without running',
      events: [j.started()], walk: payouts(anHttpCall('quote', { if: 'no' })), circumstances: { evaluate: evaluating({ no: false }) },
      move: { kind: 'journal', events: [
        { type: 'step.started', step_run_id: srid('quote'), attempt: 1 },
        { type: 'step.finished', step_run_id: srid('quote'), status: 'skipped', output: { reason: 'if was false' } },
      ] },
    },
    {
      name: 'a step whose if is true starts', events: [j.started()], walk: payouts(anHttpCall('quote', { if: 'yes' })),
      circumstances: { evaluate: evaluating({ yes: true }) }, move: startOf(http, 1),
    },
    {
      name: 'an if that cannot be evaluated fails the step and the run (expression_error)',
      events: [j.started()], walk: payouts(anHttpCall('quote', { if: 'bad' })), circumstances: { evaluate: evaluating({ bad: { error: 'no such key' } }) },
      move: endOf('failed', err('expression_error', 'no such key'), [
        { type: 'step.started', attempt: 1 }, { type: 'step.finished', status: 'failed', error: err('expression_error', 'no such key') },
      ]),
    },
    {
      name: 'a test session skips an in_test: skip step', events: [j.started('test')], walk: payouts(anHttpCall('quote', { skipInTest: true })),
      move: { kind: 'journal', events: [{ type: 'step.started' }, { type: 'step.finished', status: 'skipped', output: { reason: 'in_test: skip' } }] },
    },
    { name: 'a live session runs an in_test: skip step', events: [j.started()], walk: payouts(anHttpCall('quote', { skipInTest: true })), move: startOf(http, 1) },
    { name: 'the engine stopping lets the run go before an attempt', events: [j.started()], walk: payouts(http), circumstances: { stopping: true }, move: { kind: 'let_go' } },
  ];
  it.each(rows)('$name', (row) => expect(next(row)).toMatchObject(row.move));

  it('finishes the run on the first skipped step when the list goes on from there', () => {
    const skipped = next({ events: [j.started()], walk: payouts(anHttpCall('quote', { if: 'no' }), notify), circumstances: { evaluate: evaluating({ no: false }) } });
    expect(skipped.kind).toBe('journal');
    const events = [j.started(), ...(skipped as Extract<Move, { kind: 'journal' }>).events];
    expect(next({ events, walk: payouts(anHttpCall('quote', { if: 'no' }), notify) })).toMatchObject(startOf(notify, 1));
  });
});

describe('decide: conditions', () => {
  const guarded = (...conditions: { name: string; if: string }[]): Walk => aWorkflow({ conditions, steps: [http] });
  const rows: Row[] = [
    {
      name: 'all holding: journaled, and the run goes on', events: [j.started()], walk: guarded({ name: 'a', if: 'yes' }, { name: 'b', if: 'yes' }),
      circumstances: { evaluate: evaluating({ yes: true }) },
      move: { kind: 'journal', events: [{ type: 'run.conditions', results: [{ name: 'a', passed: true }, { name: 'b', passed: true }] }] },
    },
    {
      name: 'one false: the run ends skipped', events: [j.started()], walk: guarded({ name: 'a', if: 'yes' }, { name: 'b', if: 'no' }),
      circumstances: { evaluate: evaluating({ yes: true, no: false }) },
      move: endOf('skipped', undefined, [{ type: 'run.conditions', results: [{ name: 'a', passed: true }, { name: 'b', passed: false }] }]),
    },
    {
      name: 'one that cannot be evaluated: the run fails (expression_error), the rest unevaluated', events: [j.started()],
      walk: guarded({ name: 'a', if: 'bad' }, { name: 'b', if: 'yes' }), circumstances: { evaluate: evaluating({ bad: { error: 'u256 overflow' }, yes: true }) },
      move: endOf('failed', err('expression_error', 'condition a: u256 overflow'), [{ type: 'run.conditions', results: [{ name: 'a', passed: false, detail: { error: 'u256 overflow' } }] }]),
    },
    { name: 'checked once: the steps follow', events: [j.started(), j.conditions()], walk: guarded({ name: 'a', if: 'no' }), move: startOf(http, 1) },
  ];
  it.each(rows)('$name', (row) => expect(next(row)).toMatchObject(row.move));
});

describe('decide: retries and backoff', () => {
  const failedNow = (attempt: number, error = err('http_status')): JournalEvent[] => [j.started(), j.stepStarted(http, attempt), j.failed('quote', error)];
  const justFailed = (retryable = true): Partial<Circumstances> => ({ failed: { stepRunId: srid('quote'), retryable } });
  const retryAt = (dueAt: number) => ({
    kind: 'park', dueAt, events: [{ type: 'run.parked', wait_kind: 'delay', step_run_id: srid('quote'), due_at: iso(dueAt) }],
  });
  const capped = anHttpCall('quote', { retry: { attempts: 10, backoffMs: SECOND, maxBackoffMs: 3 * SECOND } });
  const rows: Row[] = [
    { name: 'a first failure waits the backoff', events: failedNow(1), walk: payouts(http), circumstances: justFailed(), move: retryAt(T0 + SECOND) },
    { name: 'a second failure waits twice as long', events: failedNow(2), walk: payouts(http), circumstances: justFailed(), move: retryAt(T0 + 2 * SECOND) },
    { name: 'the wait never passes max_backoff', events: failedNow(4), walk: payouts(capped), circumstances: justFailed(), move: retryAt(T0 + 3 * SECOND) },
    { name: 'the last attempt failing ends the run failed', events: failedNow(3), walk: payouts(http), circumstances: justFailed(), move: endOf('failed', err('http_status')) },
    {
      name: 'an attempt its runner refuses to repeat (a 4xx) ends the run', events: failedNow(1), walk: payouts(http), circumstances: justFailed(false),
      move: endOf('failed', err('http_status')),
    },
    {
      name: 'a step that cannot go on with the configuration as it is (a send whose relayer left) dead-letters the run',
      events: failedNow(1, err('definition_changed')), walk: payouts(http), circumstances: justFailed(false), move: endOf('dead_lettered', err('definition_changed')),
    },
    {
      name: 'a failure is decided even while the engine stops (journaled with its wait)', events: failedNow(1), walk: payouts(http),
      circumstances: { ...justFailed(), stopping: true }, move: retryAt(T0 + SECOND),
    },
    { name: 'before the retry is due the run stays parked', events: [...failedNow(1), j.parked('quote', 'delay', T0 + SECOND)], walk: payouts(http), now: T0 + 500, move: { kind: 'park', dueAt: T0 + SECOND, events: [] } },
    { name: 'when it is due the run resumes', events: [...failedNow(1), j.parked('quote', 'delay', T0 + SECOND)], walk: payouts(http), now: T0 + SECOND, move: { kind: 'journal', events: [{ type: 'run.resumed' }] } },
    {
      name: 'the last attempt failing ends the run there: the later steps (of a run or an on_reorg list) never start',
      events: failedNow(3), walk: { name: 'payouts', conditions: [], steps: [http, notify] }, circumstances: justFailed(), move: endOf('failed', err('http_status')),
    },
    {
      name: 'a failure asked about again after its wait, not parked (an on_reorg walk sleeps in process), starts the next attempt',
      events: failedNow(1), walk: { name: 'payouts', conditions: [], steps: [http, notify] }, move: startOf(http, 2),
    },
    {
      name: 'a failure with no attempt left asked about again ends the run, the later steps not started',
      events: failedNow(3), walk: { name: 'payouts', conditions: [], steps: [http, notify] }, move: endOf('failed', err('http_status')),
    },
    { name: 'resumed, the step starts its next attempt', events: [...failedNow(1), j.parked('quote', 'delay', T0 + SECOND), j.resumed()], walk: payouts(http), move: startOf(http, 2) },
  ];
  it.each(rows)('$name', (row) => expect(next(row)).toMatchObject(row.move));

  it.each(['budget_exceeded', 'approval_rejected', 'approval_expired', 'reverted', 'expression_error', 'tx_expired', 'tx_dropped'])(
    '%s is never retried, whatever the attempts left',
    (kind) => {
      expect(next({ events: failedNow(1, err(kind)), walk: payouts(http), circumstances: justFailed() })).toMatchObject(endOf('failed', err(kind)));
    },
  );
});

describe('decide: parked runs', () => {
  const expires = T0 + 24 * 60 * MINUTE;
  const waiting = [j.started(), j.stepStarted(approve), j.approvalRequested('approve', expires), j.parked('approve', 'approval', expires, expires)];
  const rows: Row[] = [
    { name: 'an approval undecided before it expires: parked until then', events: waiting, walk: payouts(approve), now: expires - 1, move: { kind: 'park', dueAt: expires, events: [] } },
    {
      name: 'an approval undecided when it expires fails the run (approval_expired)', events: waiting, walk: payouts(approve), now: expires,
      move: endOf('failed', err('approval_expired', 'the approval expired undecided'), [
        { type: 'approval.decided', approval_id: srid('approve'), decision: 'expired' }, { type: 'run.resumed' },
        { type: 'step.finished', step_run_id: srid('approve'), status: 'failed', error: { kind: 'approval_expired' } },
      ]),
    },
    {
      name: 'an approved approval finishes its step, and the run goes on', events: [...waiting, j.approvalDecided('approve', 'approved', 'alice')], walk: payouts(approve),
      move: { kind: 'journal', events: [{ type: 'run.resumed' }, { type: 'step.finished', status: 'succeeded', output: { decision: 'approved', by: 'alice', reason: null } }] },
    },
    {
      name: 'a rejected approval fails the run', events: [...waiting, j.approvalDecided('approve', 'rejected', 'bob')], walk: payouts(approve),
      move: endOf('failed', err('approval_rejected', 'rejected by bob'), [{ type: 'run.resumed' }, { type: 'step.finished', status: 'failed' }]),
    },
    {
      name: 'a delay over finishes its step', events: [j.started(), j.stepStarted(cool), j.parked('cool', 'delay', T0 + 10 * MINUTE)], walk: payouts(cool), now: T0 + 10 * MINUTE,
      move: { kind: 'journal', events: [{ type: 'run.resumed' }, { type: 'step.finished', step_run_id: srid('cool'), status: 'succeeded', output: { waited_until: iso(T0 + 10 * MINUTE) } }] },
    },
    {
      name: 'a removed current step dead-letters the run (definition_changed)', events: [j.started(), j.stepStarted(cool), j.parked('cool', 'delay', T0 + MINUTE)],
      walk: payouts(http), now: T0 + MINUTE,
      move: endOf('dead_lettered', err('definition_changed', 'step cool is no longer in workflow payouts')),
    },
    {
      name: 'a send parked on its transaction is looked at again, never sent anew', events: [j.started(), j.stepStarted(pay), j.parked('pay', 'tx', T0 + 5 * SECOND)],
      walk: payouts(pay), now: T0 + SECOND,
      move: { kind: 'recover_send', stepRunId: srid('pay'), attempt: 1, parked: true, otherwise: { kind: 'park', dueAt: T0 + 5 * SECOND } },
    },
  ];
  it.each(rows)('$name', (row) => expect(next(row)).toMatchObject(row.move));
});

describe('decide: after an engine process died', () => {
  const midStep = (step: StepDefinition): JournalEvent[] => [j.started(), j.stepStarted(step)];
  const rows: Row[] = [
    { name: 'a step running at a first death is counted once', events: midStep(http), walk: payouts(http), circumstances: { crash: { stepRunId: null, count: 0 } }, move: { kind: 'note_crash', stepRunId: srid('quote'), count: 1 } },
    {
      name: 'counted, it runs again as its next attempt (at-least-once)', events: midStep(http), walk: payouts(http),
      circumstances: { crash: { stepRunId: srid('quote'), count: 1, noted: true } }, move: startOf(http, 2),
    },
    {
      name: 'a death at another step starts the count again', events: midStep(http), walk: payouts(http),
      circumstances: { crash: { stepRunId: srid('other'), count: 1 } }, move: { kind: 'note_crash', stepRunId: srid('quote'), count: 1 },
    },
    {
      name: 'the same step running at the second death in a row is counted twice', events: midStep(http), walk: payouts(http),
      circumstances: { crash: { stepRunId: srid('quote'), count: 1 } }, move: { kind: 'note_crash', stepRunId: srid('quote'), count: 2 },
    },
    {
      name: 'twice: the run is dead-lettered (engine_crash), its step failed', events: midStep(http), walk: payouts(http),
      circumstances: { crash: { stepRunId: srid('quote'), count: 2, noted: true } },
      move: endOf('dead_lettered', err('engine_crash', 'step quote was running each of the 2 times its engine process died'), [
        { type: 'step.finished', step_run_id: srid('quote'), status: 'failed', error: { kind: 'engine_crash' } },
      ]),
    },
    {
      name: 'a send running at a death is no poison: it is recovered by its hash, its step run again only if nothing was queued',
      events: midStep(pay), walk: payouts(pay), circumstances: { crash: { stepRunId: srid('pay'), count: 5 } },
      move: { kind: 'recover_send', stepRunId: srid('pay'), attempt: 1, parked: false, otherwise: startOf(pay, 2) },
    },
    {
      name: 'the step a run is parked on was not running at the death', events: [j.started(), j.stepStarted(cool), j.parked('cool', 'delay', T0 + MINUTE)],
      walk: payouts(cool), circumstances: { crash: { stepRunId: null, count: 0 } }, move: { kind: 'park', dueAt: T0 + MINUTE },
    },
    { name: 'without a death a running step simply runs again', events: midStep(http), walk: payouts(http), move: startOf(http, 2) },
  ];
  it.each(rows)('$name', (row) => expect(next(row)).toMatchObject(row.move));
});
