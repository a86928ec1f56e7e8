import { KnexEngineStore } from '../../src/adapters/knex/knex-engine.store';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../src/adapters/knex/knex-run.repository';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { engineStoreContract } from './engine-store.contract';
import { KNEX_STORES } from '../support/stores';

engineStoreContract('in-memory fake', async () => {
  const store = new InMemoryEngineStore();
  const journal = new InMemoryJournal({ schedule: store });
  return { store, journal, stream: (runId) => journal.stream(runId), close: async () => {} };
});

for (const [store, freshStore] of KNEX_STORES) {
  engineStoreContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    // The contract drives time through the callers' `now`; the database's clock (PostgreSQL's default) is
    // held to the same leases in test/adapters/knex/lease-clock.test.ts.
    const db = await fresh.open({ leaseClock: 'caller' });
    const runs = new KnexRunRepository(db);
    return { store: new KnexEngineStore(db), journal: new KnexJournalWriter(db), stream: (runId) => runs.stream(runId), close: fresh.close };
  });
}
