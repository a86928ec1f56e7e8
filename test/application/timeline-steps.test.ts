import { exportSteps, STEP_EVENT_TYPES, timelineEvents, type ExportStep, type StepEvent } from '../../src/application/history/timeline';
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
