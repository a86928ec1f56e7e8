/**
 * A claim that brings its runs' streams (ClaimedRun.stream): on PostgreSQL the claim reads them in its own statement
 * (one round trip per claim, not one per run); SQLite's claim is a function call, and the driver reads the stream.
 * The contract suite holds every store to the rule (a stream brought is the journal's; a lease that ran out brings
 * none); this holds each store to what it does.
 */
import { KnexEngineStore } from '../../../src/adapters/knex/knex-engine.store';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { eachFreshDb, KNEX_STORES } from '../../support/stores';

const T = 1_800_000_000_000;
const at = (ms: number): string => new Date(T + ms).toISOString();
const started = (runId: string): JournalEvent => ({ type: 'run.started', at: at(0), run_id: runId, workflow: 'wf', session: 'live', trigger: { kind: 'manual', summary: 'test' } });

describe.each(KNEX_STORES)('claims and streams on %s', (name, freshStore) => {
  const store0 = eachFreshDb(freshStore, { leaseClock: 'caller' });

  it('a run held by none is claimed with its stream where the claim reads it, again after a release', async () => {
    const { db } = store0;
    const store = new KnexEngineStore(db);
    const journal = new KnexJournalWriter(db);
    const runs = new KnexRunRepository(db);
    for (const runId of ['r1', 'r2']) {
      await store.enqueue({ runId, workflow: 'wf', start: [started(runId)], at: T }, '', 0);
      await journal.append([started(runId)]);
    }
    const conditions: JournalEvent = { type: 'run.conditions', at: at(10), run_id: 'r1', results: [] };
    await journal.append([conditions]);
    const claims = await store.claimDue('a', T, T + 1000, 10);
    const brought = new Map(claims.map((c) => [c.runId, c.stream]));
    if (name === 'PostgreSQL') {
      expect(brought.get('r1')).toEqual(await runs.stream('r1'));
      expect(brought.get('r1')!.map((e) => e.type)).toEqual(['run.started', 'run.conditions']);
      expect(brought.get('r2')).toEqual([started('r2')]);
    } else {
      expect([...brought.values()]).toEqual([undefined, undefined]);
    }
    const [r1] = claims.filter((c) => c.runId === 'r1');
    await journal.append([{ type: 'run.conditions', at: at(20), run_id: 'r1', results: [] }], { fence: { runId: 'r1', token: r1!.fence } });
    await store.release('a', 'r1', T + 30);
    const [again] = await store.claimDue('b', T + 30, T + 1030, 10);
    expect(again!.runId).toBe('r1');
    expect(again!.stream).toEqual(name === 'PostgreSQL' ? await runs.stream('r1') : undefined);
  });
});
