import { FIRST_FENCE, type EngineStore } from '../../src/application/ports/engine-store';
import type { JournalWriter } from '../../src/application/ports/journal-writer';
import { LeaseLostError } from '../../src/domain/errors';
import { pinDefinition } from '../../src/domain/engine/pinned-definition';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import type { JournalEvent } from '../../src/domain/journal/journal-event';

const T = 1_800_000_000_000;
const start = (runId: string): JournalEvent[] => [{
  type: 'run.started', at: new Date(T).toISOString(), run_id: runId, workflow: 'wf', session: 'live', trigger: { kind: 'manual', summary: 'manual by test' },
}];

/** An engine store and the journal writer on the same storage (their leases fence its writes), and a reader of a run's events. */
export interface EngineStorage {
  readonly store: EngineStore;
  readonly journal: JournalWriter;
  stream(runId: string): Promise<readonly JournalEvent[]>;
  close(): Promise<void>;
}

/**
 * What every EngineStore must do (the knex adapter and the in-memory fake alike): leases that one owner holds at
 * a time and that expire, fencing tokens that the journal checks, due times, wakes, delivery keys that start one
 * run, and cron ticks fired once.
 */
export function engineStoreContract(name: string, open: () => Promise<EngineStorage>): void {
  describe(`engine store contract: ${name}`, () => {
    let store: EngineStore;
    let journal: JournalWriter;
    let stream: (runId: string) => Promise<readonly JournalEvent[]>;
    let close: () => Promise<void>;
    beforeEach(async () => {
      const opened = await open();
      ({ store, journal, close } = opened);
      stream = (runId) => opened.stream(runId);
    });
    afterEach(async () => close());

    it('an unowned run is due at once and claimed by one owner only, with its start events', async () => {
      expect(await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, '', 0)).toEqual({ runId: 'r1', created: true });
      const [claim] = await store.claimDue('a', T, T + 1000, 10);
      // A store may bring the run's stream with the claim (ClaimedRun.stream; see the tests below): nothing journaled yet.
      const { stream: claimedStream, ...claimed } = claim!;
      expect(claimed).toEqual({ runId: 'r1', workflow: 'wf', start: start('r1'), expired: false, crashStepRunId: null, crashCount: 0, fence: expect.any(Number), definitionHash: null });
      expect(claimedStream ?? []).toEqual([]);
      expect(await store.claimDue('b', T + 500, T + 1500, 10)).toEqual([]);
      expect(await store.heldCounts(T + 500)).toEqual(new Map([['wf', 1]]));
    });

    it('a held lease that runs out is claimed by another owner, marked expired; a renewed one is not', async () => {
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, 'a', T + 1000);
      await store.enqueue({ runId: 'r2', workflow: 'wf', start: start('r2'), at: T }, 'a', T + 1000);
      expect(await store.renew('a', ['r2', 'r-none'], T, T + 5000)).toEqual(['r2']);
      expect(await store.renew('b', ['r1'], T, T + 9000)).toEqual([]);
      const claims = await store.claimDue('b', T + 2000, T + 3000, 10);
      expect(claims.map((c) => [c.runId, c.expired])).toEqual([['r1', true]]);
      await store.noteCrash('r1', 'r1.step', 1);
      await store.release('b', 'r1', T + 2000);
      const [again] = await store.claimDue('c', T + 2000, T + 3000, 10);
      expect(again).toMatchObject({ runId: 'r1', expired: false, crashStepRunId: 'r1.step', crashCount: 1 });
    });

    it("the next lease end is the earliest lease another owner holds, on the caller's clock; none held: undefined", async () => {
      expect(await store.nextLeaseEnd('a', T)).toBeUndefined();
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, 'a', T + 3000);
      await store.enqueue({ runId: 'r2', workflow: 'wf', start: start('r2'), at: T }, 'b', T + 2000);
      await store.enqueue({ runId: 'r3', workflow: 'wf', start: start('r3'), at: T }, '', 0);
      expect(await store.nextLeaseEnd('c', T)).toBe(T + 2000);
      expect(await store.nextLeaseEnd('b', T)).toBe(T + 3000);
      await store.renew('b', ['r2'], T + 1000, T + 5000);
      expect(await store.nextLeaseEnd('c', T + 1000)).toBe(T + 3000);
      await store.release('a', 'r1', T + 9000);
      expect(await store.nextLeaseEnd('c', T + 1000)).toBe(T + 5000);
      expect(await store.nextLeaseEnd('b', T + 1000)).toBeUndefined();
    });

    it('each claim of a run carries a greater fencing token; a run enqueued held starts at FIRST_FENCE', async () => {
      await store.enqueue({ runId: 'held', workflow: 'wf', start: start('held'), at: T }, 'a', T + 1000);
      await store.enqueue({ runId: 'free', workflow: 'wf', start: start('free'), at: T }, '', 0);
      expect(await store.fenceOf('held')).toBe(FIRST_FENCE);
      const [free] = await store.claimDue('a', T, T + 1000, 10);
      expect(free).toMatchObject({ runId: 'free', fence: expect.any(Number) });
      await store.release('a', 'free', null);
      const [taken] = await store.claimDue('b', T + 2000, T + 3000, 10);
      expect(taken).toMatchObject({ runId: 'held', expired: true, fence: FIRST_FENCE + 1 });
      await store.release('b', 'held', T + 2000);
      const [again] = await store.claimDue('c', T + 2000, T + 3000, 10);
      expect(again!.fence).toBeGreaterThan(taken!.fence);
      expect(await store.fenceOf('held')).toBe(again!.fence);
      expect(await store.fenceOf('none')).toBeUndefined();
    });

    it('a journal write fenced by a lease that was taken over is refused and keeps nothing; the new holder writes', async () => {
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, 'a', T + 1000);
      await journal.append(start('r1'), { fence: { runId: 'r1', token: FIRST_FENCE } });
      // a stalls past its TTL; b takes the run over.
      const [claim] = await store.claimDue('b', T + 2000, T + 17_000, 10);
      const conditions = (at: number): JournalEvent[] => [{ type: 'run.conditions', at: new Date(at).toISOString(), run_id: 'r1', results: [] }];
      await expect(journal.append(conditions(T + 2500), { fence: { runId: 'r1', token: FIRST_FENCE } })).rejects.toEqual(new LeaseLostError('r1', FIRST_FENCE, false));
      expect((await stream('r1')).map((e) => e.type)).toEqual(['run.started']);
      await journal.append(conditions(T + 3000), { fence: { runId: 'r1', token: claim!.fence } });
      // Writes that are no leased engine's (an import, a cancel) carry no token and are not fenced.
      await journal.append([{ type: 'run.finished', at: new Date(T + 4000).toISOString(), run_id: 'r1', status: 'cancelled' }]);
      expect((await stream('r1')).map((e) => e.type)).toEqual(['run.started', 'run.conditions', 'run.finished']);
      // A run that left the schedule has no lease to write under.
      await store.remove('r1');
      await expect(journal.append(start('r2'), { fence: { runId: 'r1', token: claim!.fence } })).rejects.toMatchObject({ runId: 'r1', unscheduled: true });
    });

    it("a stream a claim brings is the run's journal as it stands; a lease that ran out brings none (its holder may still write)", async () => {
      await store.enqueue({ runId: 'free', workflow: 'wf', start: start('free'), at: T }, '', 0);
      await journal.append(start('free'));
      await store.enqueue({ runId: 'held', workflow: 'wf', start: start('held'), at: T }, 'a', T + 1000);
      await journal.append(start('held'), { fence: { runId: 'held', token: FIRST_FENCE } });
      const claims = await store.claimDue('b', T + 2000, T + 3000, 10);
      const byId = new Map(claims.map((c) => [c.runId, c]));
      expect([...byId.keys()].sort()).toEqual(['free', 'held']);
      if (byId.get('free')!.stream) expect(byId.get('free')!.stream).toEqual(await stream('free'));
      expect(byId.get('held')).toMatchObject({ expired: true });
      expect(byId.get('held')!.stream).toBeUndefined();
    });

    it('an append that takes its run off the schedule does both or neither: a refused one leaves the run scheduled', async () => {
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, 'a', T + 1000);
      await journal.append(start('r1'), { fence: { runId: 'r1', token: FIRST_FENCE } });
      const finished: JournalEvent = { type: 'run.finished', at: new Date(T + 100).toISOString(), run_id: 'r1', status: 'succeeded' };
      // a stalls past its TTL; b takes the run over: a's end, and its leaving the schedule, are refused.
      const [claim] = await store.claimDue('b', T + 2000, T + 3000, 10);
      await expect(journal.append([finished], { fence: { runId: 'r1', token: FIRST_FENCE }, unschedule: 'r1' })).rejects.toEqual(new LeaseLostError('r1', FIRST_FENCE, false));
      expect(await store.fenceOf('r1')).toBe(claim!.fence);
      await journal.append([finished], { fence: { runId: 'r1', token: claim!.fence }, unschedule: 'r1' });
      expect((await stream('r1')).map((e) => e.type)).toEqual(['run.started', 'run.finished']);
      expect(await store.fenceOf('r1')).toBeUndefined();
      expect(await store.claimDue('c', T + 9000, T + 10_000, 10)).toEqual([]);
    });

    it('an append that wakes a parked run makes it due in the same transaction; a refused append wakes nothing', async () => {
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, 'a', T + 1000);
      await journal.append(start('r1'));
      await store.release('a', 'r1', null);
      // run.finished of a run never started is refused: the whole append is, its wake included.
      const orphan: JournalEvent = { type: 'run.finished', at: new Date(T).toISOString(), run_id: 'never', status: 'succeeded' };
      await expect(journal.append([orphan], { wake: { runId: 'r1', at: T + 10 } })).rejects.toThrow();
      expect(await store.claimDue('b', T + 10, T + 9000, 10)).toEqual([]);
      const resumed: JournalEvent = { type: 'run.conditions', at: new Date(T + 10).toISOString(), run_id: 'r1', results: [] };
      await journal.append([resumed], { wake: { runId: 'r1', at: T + 10 } });
      expect((await store.claimDue('b', T + 10, T + 9000, 10)).map((c) => c.runId)).toEqual(['r1']);
    });

    it('a run keeps the definition it started with, by hash, secrets left out; runs of one definition share it', async () => {
      const definition: WorkflowDefinition = {
        name: 'wf', trigger: { kind: 'webhook', secret: 'hook-secret' }, paused: false, budgets: [], conditions: [], onReorg: [],
        steps: [{ id: 'call', type: 'http_call', method: 'GET', url: 'https://x.example', headers: { Authorization: 'header-secret' }, timeoutMs: 1000, skipInTest: false, retry: { attempts: 1, backoffMs: 1, maxBackoffMs: 1 } }],
      };
      const pinned = pinDefinition(definition);
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T, definition: pinned }, '', 0);
      await store.enqueue({ runId: 'r2', workflow: 'wf', start: start('r2'), at: T, definition: pinned }, '', 0);
      await store.enqueue({ runId: 'r3', workflow: 'wf', start: start('r3'), at: T }, '', 0);
      const claims = await store.claimDue('a', T, T + 1000, 10);
      expect(Object.fromEntries(claims.map((c) => [c.runId, c.definitionHash]))).toEqual({ r1: pinned.hash, r2: pinned.hash, r3: null });
      const kept = await store.pinnedDefinition(pinned.hash);
      expect(kept).toEqual(pinned.definition);
      expect(JSON.stringify(kept)).not.toMatch(/hook-secret|header-secret/);
      expect(await store.pinnedDefinition('0'.repeat(32))).toBeUndefined();
    });

    it('a released run is due at its time, earliest first; a null due time waits for a wake', async () => {
      for (const id of ['r1', 'r2', 'r3']) await store.enqueue({ runId: id, workflow: 'wf', start: start(id), at: T }, 'a', T + 1000);
      await store.release('a', 'r1', T + 300);
      await store.release('a', 'r2', T + 100);
      await store.release('a', 'r3', null);
      await store.release('z', 'r1', T); // not the holder: no effect
      expect(await store.claimDue('b', T + 50, T + 9000, 10)).toEqual([]);
      expect((await store.claimDue('b', T + 400, T + 9000, 1)).map((c) => c.runId)).toEqual(['r2']);
      expect((await store.claimDue('b', T + 400, T + 9000, 10)).map((c) => c.runId)).toEqual(['r1']);
      await store.wake('r3', T + 500);
      expect((await store.claimDue('b', T + 500, T + 9000, 10)).map((c) => c.runId)).toEqual(['r3']);
    });

    it('a wake while the run is held is kept when the holder parks it for later', async () => {
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, 'a', T + 1000);
      await store.wake('r1', T + 10);
      await store.release('a', 'r1', T + 86_400_000);
      expect((await store.claimDue('b', T + 20, T + 9000, 10)).map((c) => c.runId)).toEqual(['r1']);
    });

    it('a delivery key seen before starts nothing and answers the first run; removed runs are never claimed', async () => {
      expect(await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T, dedupeKeys: ['sig:1', 'key:k'] }, '', 0)).toEqual({ runId: 'r1', created: true });
      expect(await store.enqueue({ runId: 'r2', workflow: 'wf', start: start('r2'), at: T, dedupeKeys: ['sig:2', 'key:k'] }, '', 0)).toEqual({ runId: 'r1', created: false });
      expect(await store.enqueue({ runId: 'r3', workflow: 'wf', start: start('r3'), at: T, dedupeKeys: ['sig:1'] }, '', 0)).toEqual({ runId: 'r1', created: false });
      // r2's new signature was not kept when its Idempotency-Key turned out to be a repeat: it starts a run later.
      expect(await store.enqueue({ runId: 'r4', workflow: 'wf', start: start('r4'), at: T, dedupeKeys: ['sig:2'] }, '', 0)).toEqual({ runId: 'r4', created: true });
      await store.remove('r1');
      await store.wake('r1', T);
      expect((await store.claimDue('a', T, T + 1000, 10)).map((c) => c.runId)).toEqual(['r4']);
    });

    it('delivery keys are forgotten from a time on: a repeat of an older delivery starts a new run', async () => {
      await store.enqueue({ runId: 'old', workflow: 'wf', start: start('old'), at: T, dedupeKeys: ['sig:old'] }, '', 0);
      await store.enqueue({ runId: 'new', workflow: 'wf', start: start('new'), at: T + 1000, dedupeKeys: ['sig:new'] }, '', 0);
      expect(await store.deliveryRun(['sig:old'])).toBe('old');
      expect(await store.deliveryRun(['sig:none', 'sig:new'])).toBe('new');
      expect(await store.deliveryRun(['sig:none'])).toBeUndefined();
      expect(await store.deliveryRun([])).toBeUndefined();
      expect(await store.forgetDeliveries(T + 1000)).toBe(1);
      expect(await store.deliveryRun(['sig:old'])).toBeUndefined();
      expect(await store.enqueue({ runId: 'again', workflow: 'wf', start: start('again'), at: T + 2000, dedupeKeys: ['sig:old'] }, '', 0)).toEqual({ runId: 'again', created: true });
      expect(await store.enqueue({ runId: 'twice', workflow: 'wf', start: start('twice'), at: T + 2000, dedupeKeys: ['sig:new'] }, '', 0)).toEqual({ runId: 'new', created: false });
    });

    it('a cron tick\'s run is recorded with the move of the tick, once; a tick moved already records nothing', async () => {
      await store.advanceCron('keeper', undefined, T);
      const tick = (runId: string): Parameters<EngineStore['enqueue']>[0] => ({
        runId, workflow: 'keeper', start: start(runId), at: T, dedupeKeys: [`cron:keeper:${T}`], cronTick: { expected: T, next: T + 60_000 },
      });
      expect(await store.enqueue(tick('c1'), '', 0)).toEqual({ runId: 'c1', created: true });
      expect(await store.cronNext('keeper')).toBe(T + 60_000);
      expect(await store.enqueue(tick('c2'), '', 0)).toEqual({ runId: '', created: false });
      expect((await store.claimDue('a', T, T + 1000, 10)).map((c) => c.runId)).toEqual(['c1']);
      // The tick's run recorded (its key seen) but the tick not moved, as a store before this rule could leave it: it moves on.
      await store.advanceCron('keeper', T + 60_000, T);
      expect(await store.enqueue(tick('c3'), '', 0)).toEqual({ runId: 'c1', created: false });
      expect(await store.cronNext('keeper')).toBe(T + 60_000);
    });

    it('a cron tick moves once from the tick it expected', async () => {
      expect(await store.cronNext('keeper')).toBeUndefined();
      expect(await store.advanceCron('keeper', undefined, T)).toBe(true);
      expect(await store.advanceCron('keeper', undefined, T + 1)).toBe(false);
      expect(await store.cronNext('keeper')).toBe(T);
      expect(await store.advanceCron('keeper', T, T + 60_000)).toBe(true);
      expect(await store.advanceCron('keeper', T, T + 60_000)).toBe(false);
      expect(await store.cronNext('keeper')).toBe(T + 60_000);
    });
  });
}
