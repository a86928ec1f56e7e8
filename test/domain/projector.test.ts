import { JournalRejectedError } from '../../src/domain/errors';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { applyEvents } from '../../src/domain/journal/projector';
import { emptyWorkingSet } from '../../src/domain/journal/working-set';
import { aFinish, aPark, aRun, HOUR, T0 } from '../mothers/journal-events';

/** The refusal applyEvents throws, failing the test when it throws nothing or something else. */
function refusal(run: () => unknown): JournalRejectedError {
  try {
    run();
  } catch (err) {
    if (err instanceof JournalRejectedError) return err;
    throw err;
  }
  throw new Error('expected a JournalRejectedError');
}

describe('applyEvents', () => {
  it('names a lifecycle refusal by the event\'s index in the whole append (offset + position)', () => {
    const ws = emptyWorkingSet();
    const run = aRun({ runId: 'r1' });
    applyEvents(ws, run);
    const err = refusal(() => applyEvents(ws, [...aRun({ runId: 'r2', at: T0 + HOUR }), aPark('r1', T0 + 2 * HOUR, { waitKind: 'delay' })], 5000));
    expect(err).toMatchObject({ index: 5000 + run.length, reason: 'run_id: the run already succeeded: a finished run cannot be parked' });
    expect(err.message).toBe(`event ${5000 + run.length}: run_id: the run already succeeded: a finished run cannot be parked`);
  });

  it('counts a run\'s end once in its workflow stats, however its history is cut into appends', () => {
    const ws = emptyWorkingSet();
    const events = [...aRun({ runId: 'r1', status: 'running' }), aFinish('r1', T0 + HOUR)];
    events.forEach((e, i) => applyEvents(ws, [e], i));
    expect(() => applyEvents(ws, [aFinish('r1', T0 + 2 * HOUR)])).toThrow(JournalRejectedError);
    applyEvents(ws, events);
    expect(ws.workflowStats.get('payouts')).toMatchObject({ successCount: 1, failureCount: 0 });
    expect(ws.workflowStats.get('payouts')!.durations.total).toBe(1);
  });

  it('refuses an event of a type it does not know, rather than storing it unread', () => {
    const ws = emptyWorkingSet();
    applyEvents(ws, aRun({ runId: 'r1' }));
    const odd = { type: 'run.exploded', at: '2026-03-01T12:00:00.000Z', run_id: 'r1' } as unknown as JournalEvent;
    expect(refusal(() => applyEvents(ws, [odd]))).toMatchObject({ index: 0, reason: 'type: unknown event type' });
  });
});
