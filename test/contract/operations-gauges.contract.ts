/**
 * What every OperationsGauges adapter must do (the /metrics gauges read from storage, CONTRACT 11): grouped counts
 * of what the journal holds now, the same whichever process asks.
 */
import type { OperationsGauges } from '../../src/application/ports/operations-gauges';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { aPark, aResume, aRun, aTxHash, aWorkflowState, T0 } from '../mothers/journal-events';

export interface GaugesUnderTest {
  readonly gauges: OperationsGauges;
  append(events: readonly JournalEvent[]): Promise<void>;
  close(): Promise<void>;
}

const sorted = <T>(rows: T[]): T[] => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

export function operationsGaugesContract(name: string, make: () => Promise<GaugesUnderTest>): void {
  describe(`OperationsGauges contract: ${name}`, () => {
    let t: GaugesUnderTest;
    beforeEach(async () => {
      t = await make();
    });
    afterEach(() => t.close());

    it('an empty journal has no groups', async () => {
      expect(await t.gauges.runsWaiting()).toEqual([]);
      expect(await t.gauges.sendsInFlight()).toEqual([]);
      expect(await t.gauges.eventLag()).toEqual([]);
    });

    it('counts waiting runs per workflow and wait kind; a resumed run leaves its group', async () => {
      await t.append([
        ...aRun({ runId: 'a1', workflow: 'payouts', approval: {}, park: { waitKind: 'approval' } }),
        ...aRun({ runId: 'a2', workflow: 'payouts', approval: {}, park: { waitKind: 'approval' } }),
        ...aRun({ runId: 'd1', workflow: 'keeper', steps: [{ stepId: 'cool', stepType: 'delay', unfinished: true }], park: { waitKind: 'delay' } }),
        ...aRun({ runId: 'done', workflow: 'keeper' }),
      ]);
      expect(sorted(await t.gauges.runsWaiting())).toEqual(sorted([
        { workflow: 'payouts', waitKind: 'approval', runs: 2 }, { workflow: 'keeper', waitKind: 'delay', runs: 1 },
      ]));
      await t.append([aResume('d1', T0 + 60_000), aResume('a1', T0 + 60_000), aPark('a1', T0 + 61_000, { waitKind: 'delay' })]);
      expect(sorted(await t.gauges.runsWaiting())).toEqual(sorted([
        { workflow: 'payouts', waitKind: 'approval', runs: 1 }, { workflow: 'payouts', waitKind: 'delay', runs: 1 },
      ]));
    });

    it('counts live sends not settled per relayer; settled ones and test sessions\' simulated ones are not in flight', async () => {
      await t.append([
        ...aRun({ runId: 's1', send: { relayer: 'ops', status: 'submitted', txHash: aTxHash('s1') }, status: 'running' }),
        ...aRun({ runId: 's2', send: { relayer: 'ops', status: 'queued' }, status: 'running' }),
        ...aRun({ runId: 's3', send: { relayer: 'hot', status: 'submitted', txHash: aTxHash('s3') }, status: 'running' }),
        ...aRun({ runId: 's4', send: { relayer: 'ops', status: 'settled', outcome: 'confirmed', txHash: aTxHash('s4') } }),
        ...aRun({ runId: 's5', session: 'test', sessionId: 'test-1', send: { relayer: 'cold', status: 'queued' } }),
      ]);
      expect(sorted(await t.gauges.sendsInFlight())).toEqual(sorted([{ relayer: 'ops', sends: 2 }, { relayer: 'hot', sends: 1 }]));
    });

    it('gives the lag of workflows whose state has a cursor and a head, never below 0', async () => {
      await t.append([
        aWorkflowState({ workflow: 'deposits', trigger: 'event', cursorBlock: 90, headBlock: 100 }),
        aWorkflowState({ workflow: 'ahead', trigger: 'event', cursorBlock: 12, headBlock: 10 }),
        aWorkflowState({ workflow: 'keeper', trigger: 'cron', paused: true }),
      ]);
      expect(sorted(await t.gauges.eventLag())).toEqual(sorted([{ workflow: 'deposits', lagBlocks: 10 }, { workflow: 'ahead', lagBlocks: 0 }]));
    });
  });
}
