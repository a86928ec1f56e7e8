import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexRetentionRepository } from '../../src/adapters/knex/knex-retention.repository';
import { KnexRunRepository } from '../../src/adapters/knex/knex-run.repository';
import type { JournalWriter } from '../../src/application/ports/journal-writer';
import type { RetentionRepository } from '../../src/application/ports/retention-repository';
import type { RunRepository } from '../../src/application/ports/run-repository';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { aRun, aTxHash, DAY, T0 } from '../mothers/journal-events';
import { KNEX_STORES } from '../support/stores';

type Ports = { writer: JournalWriter; runs: RunRepository; retention: RetentionRepository; close(): Promise<void> };

const adapters: [string, () => Promise<Ports>][] = [
  ['in-memory fake', async () => {
    const j = new InMemoryJournal();
    return { writer: j, runs: j, retention: j, close: async () => {} };
  }],
  ...KNEX_STORES.map(([store, freshStore]): [string, () => Promise<Ports>] => [`knex on ${store}`, async () => {
    const fresh = await freshStore();
    const db = await fresh.open();
    return { writer: new KnexJournalWriter(db), runs: new KnexRunRepository(db), retention: new KnexRetentionRepository(db), close: fresh.close };
  }]),
];

describe.each(adapters)('retention contract: %s', (_name, open) => {
  let ports: Ports;
  beforeEach(async () => {
    ports = await open();
    await ports.writer.append([
      ...aRun({ runId: 'old-1', at: T0 - 10 * DAY, send: { txHash: aTxHash('o1'), relayer: 'ops' }, approval: { decision: 'approved' } }),
      ...aRun({ runId: 'old-2', at: T0 - 9 * DAY, reorg: { reorgId: 'rg-old' } }),
      ...aRun({ runId: 'new-1', at: T0, send: { txHash: aTxHash('n1'), relayer: 'ops' } }),
    ]);
  });
  afterEach(async () => ports.close());

  it('counts what lies before the cut without removing it', async () => {
    const counts = await ports.retention.countBefore(T0 - 5 * DAY);
    expect(counts).toMatchObject({ runs: 2, sends: 1, approvals: 1, reorgs: 1 });
    expect(counts.events).toBe((await ports.runs.stream('old-1')).length + (await ports.runs.stream('old-2')).length);
    expect((await ports.runs.list({}, { limit: 10 })).length).toBe(3);
  });

  it('removes old runs with everything journaled against them, and nothing else', async () => {
    const before = await ports.retention.countBefore(T0 - 5 * DAY);
    expect(await ports.retention.pruneBefore(T0 - 5 * DAY)).toEqual(before);
    expect((await ports.runs.list({}, { limit: 10 })).map((r) => r.runId)).toEqual(['new-1']);
    expect(await ports.runs.stream('old-1')).toEqual([]);
    expect(await ports.runs.list({ relayer: 'ops' }, { limit: 10 })).toHaveLength(1);
    expect(await ports.runs.list({ txHash: aTxHash('o1') }, { limit: 10 })).toHaveLength(0);
    expect((await ports.runs.stream('new-1')).length).toBeGreaterThan(0);
    // The export's step runs of the pruned runs go with them (a run pruned, then journaled again, starts afresh).
    expect((await ports.runs.stepItemsOfRuns(['old-1', 'old-2', 'new-1'])).texts.map((t) => t.slice(0, 20))).toEqual(['{"run_id":"new-1","a']);
    expect(await ports.retention.countBefore(T0 - 5 * DAY)).toEqual({ runs: 0, events: 0, sends: 0, approvals: 0, reorgs: 0 });
  });
});
