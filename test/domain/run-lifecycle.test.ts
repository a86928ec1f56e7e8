import { decideApproval } from '../../src/domain/approval';
import { InvalidTransitionError } from '../../src/domain/errors';
import type { RunEndStatus } from '../../src/domain/journal/journal-event';
import { assertRunOpen, finishRun, isFinished, parkRun, resumeRun, startStep, type Run } from '../../src/domain/run';
import { parkSend, settleSend, submitSend } from '../../src/domain/send-attempt';
import { aTxHash, HOUR, MINUTE, T0 } from '../mothers/journal-events';
import { aRunRecord, aSendRecord, aSettledSendRecord, anApprovalRecord } from '../mothers/records';

/** The transition's refusal: an InvalidTransitionError, with the entity left as it was. */
function refusal<T>(entity: T, move: (e: T) => unknown): string {
  const before = structuredClone(entity);
  let caught: unknown;
  try {
    move(entity);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(InvalidTransitionError);
  expect(entity).toEqual(before);
  return (caught as InvalidTransitionError).reason;
}

const parked = (run: Run): Run => {
  parkRun(run, 'delay', 'run-1.wait', T0 + 10 * MINUTE, null, T0 + MINUTE);
  return run;
};
const finished = (status: RunEndStatus = 'succeeded'): Run => {
  const run = aRunRecord();
  finishRun(run, status, status === 'succeeded' ? undefined : 'http_error', T0 + 2 * MINUTE);
  return run;
};

describe('a run\'s lifecycle', () => {
  it('runs, parks on a wait, resumes, and finishes with its status and duration', () => {
    const run = aRunRecord();
    expect(startStep(run, 'wait')).toBe(true);
    parkRun(run, 'delay', 'run-1.wait', T0 + 10 * MINUTE, T0 + 20 * MINUTE, T0 + MINUTE);
    expect(run).toMatchObject({
      status: 'waiting', waitKind: 'delay', waitStepRunId: 'run-1.wait', parkedAt: T0 + MINUTE, dueAt: T0 + 10 * MINUTE, expiresAt: T0 + 20 * MINUTE,
    });
    resumeRun(run);
    expect(run).toMatchObject({ status: 'running', waitKind: null, waitStepRunId: null, parkedAt: null, dueAt: null, expiresAt: null });
    expect(startStep(run, 'wait')).toBe(false);
    expect(startStep(run, 'notify')).toBe(true);
    expect(run.stepIds).toEqual(['wait', 'notify']);
    expect(finishRun(run, 'succeeded', undefined, T0 + 11 * MINUTE)).toBe(11 * MINUTE);
    expect(run).toMatchObject({ status: 'succeeded', finishedAt: T0 + 11 * MINUTE, durationMs: 11 * MINUTE, errorKind: null });
    expect(isFinished(run)).toBe(true);
  });

  it('finishes while parked (a cancel, an expiry), and the wait is gone', () => {
    const run = parked(aRunRecord());
    finishRun(run, 'cancelled', 'cancelled', T0 + 5 * MINUTE);
    expect(run).toMatchObject({ status: 'cancelled', errorKind: 'cancelled', waitKind: null, parkedAt: null, dueAt: null });
  });

  it('keeps the error kind of a failed step when it ends without one, and clears it when it succeeds', () => {
    const failed = aRunRecord({ errorKind: 'http_error' });
    finishRun(failed, 'failed', undefined, T0 + MINUTE);
    expect(failed.errorKind).toBe('http_error');
    const recovered = aRunRecord({ errorKind: 'http_error' });
    finishRun(recovered, 'succeeded', undefined, T0 + MINUTE);
    expect(recovered.errorKind).toBeNull();
  });

  it('a duration never goes below zero (an end stamped before the start)', () => {
    expect(finishRun(aRunRecord(), 'succeeded', undefined, T0 - MINUTE)).toBe(0);
  });

  it.each(['succeeded', 'failed', 'dead_lettered', 'cancelled', 'skipped'] as const)('a run finished %s cannot be parked, resumed, finished again or start a step', (status) => {
    expect(refusal(finished(status), (r) => parkRun(r, 'delay', null, null, null, T0 + HOUR)))
      .toBe(`run_id: the run already ${status}: a finished run cannot be parked`);
    expect(refusal(finished(status), (r) => resumeRun(r))).toBe(`run_id: the run already ${status}: a finished run cannot be resumed`);
    expect(refusal(finished(status), (r) => finishRun(r, 'failed', 'late', T0 + HOUR))).toBe(`run_id: the run already ${status}: a finished run cannot finish again`);
    expect(refusal(finished(status), (r) => startStep(r, 'again'))).toBe(`run_id: the run already ${status}: a finished run starts no step`);
    expect(refusal(finished(status), (r) => assertRunOpen(r, 'send.queued'))).toBe(`run_id: the run already ${status}: a finished run takes no send.queued`);
  });

  it('a parked run starts no step and does not park again until it is resumed', () => {
    expect(refusal(parked(aRunRecord()), (r) => startStep(r, 'next'))).toBe('run_id: the run is parked (delay): a step starts only after run.resumed');
    expect(refusal(parked(aRunRecord()), (r) => parkRun(r, 'approval', null, null, null, T0 + HOUR)))
      .toBe('run_id: the run is already parked (delay): run.resumed comes before another run.parked');
    const run = parked(aRunRecord());
    resumeRun(run);
    parkRun(run, 'approval', 'run-1.approve', null, T0 + HOUR, T0 + 2 * MINUTE);
    expect(run).toMatchObject({ status: 'waiting', waitKind: 'approval', parkedAt: T0 + 2 * MINUTE });
  });

  it('a running run cannot be resumed', () => {
    expect(refusal(aRunRecord(), (r) => resumeRun(r))).toBe('run_id: the run is not parked: run.resumed needs a run.parked before it');
  });

  it('a run that is running or parked is open to moves', () => {
    expect(() => assertRunOpen(aRunRecord(), 'step.finished')).not.toThrow();
    expect(() => assertRunOpen(parked(aRunRecord()), 'step.finished')).not.toThrow();
  });
});

describe('a send\'s lifecycle', () => {
  it('parks, is submitted (and submitted again, replaced), then settles with the hash that landed', () => {
    const send = aSendRecord();
    parkSend(send, T0 + 1000);
    expect(send).toMatchObject({ status: 'parked', txHash: null, updatedAt: T0 + 1000 });
    submitSend(send, aTxHash('first'), T0 + 2000);
    submitSend(send, aTxHash('bumped'), T0 + 3000);
    expect(send).toMatchObject({ status: 'submitted', txHash: aTxHash('bumped') });
    settleSend(send, 'confirmed', aTxHash('first'), { gasUsed: '21000', effectiveGasPrice: '1' }, T0 + 4000);
    expect(send).toMatchObject({ status: 'settled', outcome: 'confirmed', txHash: aTxHash('first'), receipt: { gasUsed: '21000' }, updatedAt: T0 + 4000 });
  });

  it('a settled send takes no later park or submit', () => {
    expect(refusal(aSettledSendRecord(), (s) => submitSend(s, aTxHash('late'), T0 + HOUR)))
      .toBe(`send_id: the send already settled (confirmed): a settled send takes no send.submitted`);
    expect(refusal(aSettledSendRecord(), (s) => parkSend(s, T0 + HOUR)))
      .toBe(`send_id: the send already settled (confirmed): a settled send takes no send.parked`);
  });

  it('the same terminal settle repeated (a crash and rerun) is taken and only brings its receipt', () => {
    const send = aSettledSendRecord();
    settleSend(send, 'confirmed', undefined, undefined, T0 + HOUR);
    settleSend(send, 'confirmed', aTxHash('landed'), { gasUsed: '30000', effectiveGasPrice: '2' }, T0 + 2 * HOUR);
    expect(send).toMatchObject({ status: 'settled', outcome: 'confirmed', txHash: aTxHash('landed'), receipt: { gasUsed: '30000' } });
  });

  it('a settle naming another outcome or another hash is refused', () => {
    expect(refusal(aSettledSendRecord(), (s) => settleSend(s, 'dropped', undefined, undefined, T0 + HOUR)))
      .toBe(`send_id: the send already settled (confirmed): a settled send takes no second send.settled with dropped`);
    expect(refusal(aSettledSendRecord(), (s) => settleSend(s, 'confirmed', aTxHash('other'), undefined, T0 + HOUR)))
      .toMatch(/a settled send takes no second send.settled with confirmed and another hash$/);
  });
});

describe('an approval\'s lifecycle', () => {
  it('is decided once: by whom, why, when', () => {
    const approval = anApprovalRecord();
    decideApproval(approval, 'approved', 'alice', 'looks right', T0 + MINUTE);
    expect(approval).toMatchObject({ status: 'approved', decidedBy: 'alice', reason: 'looks right', decidedAt: T0 + MINUTE });
  });

  it.each(['approved', 'rejected', 'expired'] as const)('an approval already %s refuses a second decision', (first) => {
    const approval = anApprovalRecord();
    decideApproval(approval, first, null, null, T0 + MINUTE);
    expect(refusal(approval, (a) => decideApproval(a, 'approved', 'bob', null, T0 + 2 * MINUTE)))
      .toBe(`approval_id: the approval is already ${first}: an approval is decided once`);
  });
});
