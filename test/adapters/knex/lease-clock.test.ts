/**
 * Leases on PostgreSQL run on the database's clock (CONTRACT 10): processes whose clocks disagree still agree on
 * who holds a run or a watched send, and a lease runs out when the server's time passes its end, whatever the
 * callers' clocks say. (SQLite is one host's file: its leases take the callers' times, as the contract suites show.)
 */
import type { Knex } from 'knex';
import { KnexEngineStore } from '../../../src/adapters/knex/knex-engine.store';
import { KnexSendStore } from '../../../src/adapters/knex/knex-send.store';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { freshPostgresStore, type FreshStore } from '../../support/stores';

const HOUR = 3_600_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const start = (runId: string): JournalEvent[] => [{ type: 'run.started', at: new Date().toISOString(), run_id: runId, workflow: 'wf', session: 'live', trigger: { kind: 'manual' } }];

describe('leases on the database clock (PostgreSQL)', () => {
  let store: FreshStore;
  let a: KnexEngineStore;
  let b: KnexEngineStore;
  let dbs: Knex[];
  beforeEach(async () => {
    store = await freshPostgresStore();
    dbs = [await store.open(), await store.open()];
    a = new KnexEngineStore(dbs[0]!);
    b = new KnexEngineStore(dbs[1]!);
  });
  afterEach(() => store.close());

  it('a process whose clock runs an hour ahead neither sees a live lease as run out nor takes the run', async () => {
    const now = Date.now();
    await a.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: now }, '', 0);
    expect((await a.claimDue('a', now, now + 15_000, 10)).map((c) => c.runId)).toEqual(['r1']);
    const ahead = now + HOUR;
    expect(await b.claimDue('b', ahead, ahead + 15_000, 10)).toEqual([]);
    expect(await b.heldCounts(ahead)).toEqual(new Map([['wf', 1]]));
  });

  it('a lease runs out when the database\'s time passes its end, though the callers\' clocks stand still', async () => {
    const frozen = Date.parse('2026-03-01T12:00:00.000Z');
    await a.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: frozen }, '', 0);
    const [first] = await a.claimDue('a', frozen, frozen + 200, 10);
    expect(await b.claimDue('b', frozen, frozen + 200, 10)).toEqual([]);
    await sleep(300);
    const [taken] = await b.claimDue('b', frozen, frozen + 15_000, 10);
    expect(taken).toMatchObject({ runId: 'r1', expired: true });
    expect(taken!.fence).toBeGreaterThan(first!.fence);
  });

  it('a claim on the database\'s clock takes at most its limit, and the next claim the rest', async () => {
    const now = Date.now();
    for (const [i, id] of ['r3', 'r1', 'r2'].entries()) await a.enqueue({ runId: id, workflow: 'wf', start: start(id), at: now + i }, '', 0);
    expect((await a.claimDue('a', now, now + 15_000, 2)).map((c) => c.runId).sort()).toEqual(['r1', 'r3']);
    expect((await b.claimDue('b', now, now + 15_000, 2)).map((c) => c.runId)).toEqual(['r2']);
  });

  it('a renewal extends the lease from the database\'s now by the length the caller asks for', async () => {
    const frozen = Date.parse('2026-03-01T12:00:00.000Z');
    await a.enqueue({ runId: 'r1', workflow: 'wf', start: start('r1'), at: frozen }, '', 0);
    await a.claimDue('a', frozen, frozen + 200, 10);
    await sleep(100);
    expect(await a.renew('a', ['r1'], frozen, frozen + 5_000)).toEqual(['r1']);
    await sleep(250); // past the first lease's end on the database's clock
    expect(await b.claimDue('b', frozen + HOUR, frozen + HOUR + 200, 10)).toEqual([]);
  });

  it('a watched send leased by one process is not taken by another whose clock runs ahead, until the lease runs out on the database\'s clock', async () => {
    const [sa, sb] = [new KnexSendStore(dbs[0]!), new KnexSendStore(dbs[1]!)];
    const now = Date.now();
    await sa.watch({ sendId: 's1', runId: 'r1' }, now);
    expect(await sa.claimDue('a', now, now + 200, 10)).toEqual([{ sendId: 's1', runId: 'r1' }]);
    expect(await sb.claimDue('b', now + HOUR, now + HOUR + 200, 10)).toEqual([]);
    expect(await sb.lease({ sendId: 's1', runId: 'r1' }, 'b', now + HOUR, now + HOUR + 200)).toBe(false);
    await sleep(300);
    expect(await sb.claimDue('b', now, now + 15_000, 10)).toEqual([{ sendId: 's1', runId: 'r1' }]);
  });
});
