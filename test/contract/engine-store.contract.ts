import type { EngineStore } from '../../src/application/ports/engine-store';
import type { JournalEvent } from '../../src/domain/journal/journal-event';

const T = 1_800_000_000_000;
const start = (runId: string): JournalEvent[] => [{
  type: 'run.started', at: new Date(T).toISOString(), run_id: runId, workflow: 'wf', session: 'live', trigger: { kind: 'manual', summary: 'manual by test' },
}];

/**
 * What every EngineStore must do (the knex adapter and the in-memory fake alike): leases that one owner holds at
 * a time and that expire, due times, wakes, delivery keys that start one run, and cron ticks fired once.
 */
export function engineStoreContract(name: string, open: () => Promise<{ store: EngineStore; close(): Promise<void> }>): void {
  describe(`engine store contract: ${name}`, () => {
    let store: EngineStore;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ store, close } = await open());
    });
    afterEach(async () => close());

    it('an unowned run is due at once and claimed by one owner only, with its start events', async () => {
      expect(await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, '', 0)).toEqual({ runId: 'r1', created: true });
      const [claim] = await store.claimDue('a', T, T + 1000, 10);
      expect(claim).toEqual({ runId: 'r1', workflow: 'wf', start: start('r1'), expired: false, crashStepRunId: null, crashCount: 0 });
      expect(await store.claimDue('b', T + 500, T + 1500, 10)).toEqual([]);
      expect(await store.heldCounts(T + 500)).toEqual(new Map([['wf', 1]]));
    });

    it('a held lease that runs out is claimed by another owner, marked expired; a renewed one is not', async () => {
      await store.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: T }, 'a', T + 1000);
      await store.enqueue({ runId: 'r2', workflow: 'wf', start: start('r2'), at: T }, 'a', T + 1000);
      expect(await store.renew('a', ['r2', 'r-none'], T + 5000)).toEqual(['r2']);
      expect(await store.renew('b', ['r1'], T + 9000)).toEqual([]);
      const claims = await store.claimDue('b', T + 2000, T + 3000, 10);
      expect(claims.map((c) => [c.runId, c.expired])).toEqual([['r1', true]]);
      await store.noteCrash('r1', 'r1.step', 1);
      await store.release('b', 'r1', T + 2000);
      const [again] = await store.claimDue('c', T + 2000, T + 3000, 10);
      expect(again).toMatchObject({ runId: 'r1', expired: false, crashStepRunId: 'r1.step', crashCount: 1 });
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
      expect(await store.forgetDeliveries(T + 1000)).toBe(1);
      expect(await store.enqueue({ runId: 'again', workflow: 'wf', start: start('again'), at: T + 2000, dedupeKeys: ['sig:old'] }, '', 0)).toEqual({ runId: 'again', created: true });
      expect(await store.enqueue({ runId: 'twice', workflow: 'wf', start: start('twice'), at: T + 2000, dedupeKeys: ['sig:new'] }, '', 0)).toEqual({ runId: 'new', created: false });
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
