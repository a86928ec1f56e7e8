import fc from 'fast-check';
import { exportSteps, foldExportSteps, STEP_EVENT_TYPES, timelineEvents, type ExportStep, type StepEvent, type StepFoldState } from '../../src/application/history/timeline';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { ExplorerLinks } from '../../src/domain/explorer';
import { aPark, aResume, aRun, aTxHash, FETCH_STEP, MINUTE, T0 } from '../mothers/journal-events';

/** The step runs of the whole timeline, as the export showed them before it had exportSteps: with the run first, without kind and sends. */
function stepsOfTimeline(runId: string, stream: readonly JournalEvent[]): ExportStep[] {
  return timelineEvents(stream, new ExplorerLinks()).filter((e): e is StepEvent => e.kind === 'step')
    .map(({ kind: _kind, sends: _sends, ...step }) => ({ run_id: runId, ...step }));
}

const onlyStepEvents = (stream: readonly JournalEvent[]): JournalEvent[] => stream.filter((e) => STEP_EVENT_TYPES.includes(e.type));

describe('exportSteps', () => {
  const parkedThenResumed = [
    ...aRun({ runId: 'pr', at: T0, steps: [FETCH_STEP, { stepId: 'wait_a_bit', stepType: 'wait', unfinished: true }], status: 'running' }),
    aPark('pr', T0 + MINUTE, { waitKind: 'delay', dueAt: new Date(T0 + 5 * MINUTE).toISOString() }),
    aResume('pr', T0 + 5 * MINUTE),
  ];
  const streams: Record<string, JournalEvent[]> = {
    'a plain run': aRun({ runId: 'plain', at: T0 }),
    'retries, simulation, budget checks and a send': aRun({
      runId: 'busy', at: T0,
      steps: [{ ...FETCH_STEP, failedAttempts: 2, retryError: { kind: 'timeout', message: 'slow' } }],
      send: { txHash: aTxHash('busy'), simulation: { ok: true, gasEstimate: '21000' }, budgetChecks: [{ budget: 'daily', spentWei: '1', capWei: '10', allowed: true }] },
      approval: { decision: 'approved', by: 'alice' },
    }),
    'a failed step': aRun({ runId: 'bad', at: T0, failure: { kind: 'http_error', message: 'boom' } }),
    'a run parked on its last step': aRun({ runId: 'parked', at: T0, park: { waitKind: 'approval', expiresAt: new Date(T0 + MINUTE).toISOString() }, approval: {} }),
    'a run parked, then resumed': parkedThenResumed,
    'a reorg response': aRun({ runId: 'reorged', at: T0, send: { txHash: aTxHash('rg') }, reorg: { reorgId: 'rg-1' } }),
  };

  it.each(Object.keys(streams))('shows the step runs of the timeline, in its order: %s', (name) => {
    const stream = streams[name]!;
    const expected = stepsOfTimeline('the-run', stream);
    expect(expected.length).toBeGreaterThan(0);
    // The same steps, and the same text: the export writes them with JSON.stringify, in the order of their keys.
    expect(exportSteps('the-run', stream)).toEqual(expected);
    expect(JSON.stringify(exportSteps('the-run', stream))).toBe(JSON.stringify(expected));
    // The export reads only the events that make steps: the same steps come of them.
    expect(JSON.stringify(exportSteps('the-run', onlyStepEvents(stream)))).toBe(JSON.stringify(expected));
  });

  it('follows a wait to its resumption', () => {
    const steps = exportSteps('pr', onlyStepEvents(parkedThenResumed));
    expect(steps.map((s) => [s.step_id, s.status, s.wait?.resumed_at ?? null])).toEqual([
      ['fetch_quote', 'succeeded', null], ['wait_a_bit', 'running', new Date(T0 + 5 * MINUTE).toISOString()],
    ]);
  });
});

describe('foldExportSteps', () => {
  const times = [0, 1, 1, 2, 3].map((s) => new Date(T0 + s * 1000).toISOString());
  const stepRunIds = ['r.a', 'r.b', 'r.c'];
  const at = fc.constantFrom(...times);
  const sid = fc.constantFrom(...stepRunIds);
  const event: fc.Arbitrary<JournalEvent> = fc.oneof(
    fc.record({ at, sid, attempt: fc.integer({ min: 1, max: 3 }), input: fc.option(fc.constantFrom({ n: 1 }, 'x'), { nil: undefined }) })
      .map(({ at, sid, attempt, input }): JournalEvent => ({
        type: 'step.started', at, run_id: 'r', step_run_id: sid, step_id: sid.slice(2), step_type: 'http_call', attempt, ...(input === undefined ? {} : { input }),
      })),
    fc.record({ at, sid, ok: fc.boolean() }).map(({ at, sid, ok }): JournalEvent => ({
      type: 'step.simulated', at, run_id: 'r', step_run_id: sid, ok, ...(ok ? { gas_estimate: '21000' } : { revert_reason: 'nope' }),
    })),
    fc.record({ at, sid, allowed: fc.boolean() }).map(({ at, sid, allowed }): JournalEvent => ({
      type: 'budget.checked', at, run_id: 'r', step_run_id: sid, budget: 'daily', spent_wei: '5', cap_wei: '10', allowed,
    })),
    fc.record({ at, sid, status: fc.constantFrom(...(['succeeded', 'failed', 'skipped'] as const)) }).map(({ at, sid, status }): JournalEvent => ({
      type: 'step.finished', at, run_id: 'r', step_run_id: sid, status,
      ...(status === 'failed' ? { error: { kind: 'http_status', message: '503' } } : { output: { ok: true } }),
    })),
    fc.record({ at, sid: fc.option(fc.constantFrom(...stepRunIds, 'r.unknown'), { nil: undefined }), kind: fc.constantFrom(...(['delay', 'approval', 'tx'] as const)) })
      .map(({ at, sid, kind }): JournalEvent => ({
        type: 'run.parked', at, run_id: 'r', wait_kind: kind, ...(sid ? { step_run_id: sid } : {}), ...(kind === 'delay' ? { due_at: times[4] } : { expires_at: times[3] }),
      })),
    at.map((at): JournalEvent => ({ type: 'run.resumed', at, run_id: 'r' })),
    at.map((at): JournalEvent => ({ type: 'run.finished', at, run_id: 'r', status: 'succeeded' })),
  );

  it('folds a stream cut into any parts, its state stored as text between them, as exportSteps folds it whole', () => {
    fc.assert(fc.property(fc.array(event, { maxLength: 24 }), fc.array(fc.nat(), { maxLength: 6 }), (stream, cuts) => {
      const ends = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b).concat(stream.length);
      let state: StepFoldState<ExportStep> | undefined;
      let start = 0;
      for (const end of ends) {
        const next = foldExportSteps('r', state, stream.slice(start, end));
        start = end;
        // As the storage keeps it between two appends: the steps as JSON text, the two step run ids beside them.
        state = { steps: JSON.parse(JSON.stringify(next.steps)) as ExportStep[], last: next.last, openWait: next.openWait };
      }
      expect(JSON.stringify(state?.steps ?? [])).toBe(JSON.stringify(exportSteps('r', stream)));
    }), { numRuns: 2000 });
  });

  it('keeps which step a later park without a step run id parks on, and which wait a resumption closes, across parts', () => {
    const started = (sid: string, s: number): JournalEvent => ({ type: 'step.started', at: times[s]!, run_id: 'r', step_run_id: sid, step_id: sid.slice(2), step_type: 'delay', attempt: 1 });
    // Started last, but earlier in time: the last step run is not the last of the time-ordered list.
    const first = foldExportSteps('r', undefined, [started('r.a', 3), started('r.b', 0), { type: 'run.parked', at: times[3]!, run_id: 'r', wait_kind: 'delay' }]);
    expect(first).toMatchObject({ last: 'r.b', openWait: 'r.b' });
    const stored = { ...first, steps: JSON.parse(JSON.stringify(first.steps)) as ExportStep[] };
    const second = foldExportSteps('r', stored, [{ type: 'run.resumed', at: times[4]!, run_id: 'r' }]);
    expect(second.openWait).toBeNull();
    expect(second.steps.map((s) => [s.step_run_id, s.status, s.wait?.resumed_at ?? null])).toEqual([['r.b', 'running', times[4]], ['r.a', 'running', null]]);
  });
});
