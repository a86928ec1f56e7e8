import { KnexEngineStore } from '../../src/adapters/knex/knex-engine.store';
import { KnexEventCursors } from '../../src/adapters/knex/knex-event-cursors';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryEventCursors } from '../fakes/in-memory-event-cursors';
import { KNEX_STORES } from '../support/stores';
import { eventCursorsContract } from './event-cursors.contract';

eventCursorsContract('in-memory fake', async () => {
  const engine = new InMemoryEngineStore();
  const journal = new InMemoryJournal();
  const cursors = new InMemoryEventCursors(engine, journal);
  return { cursors, engine, other: cursors, journal, close: async () => {} };
});

for (const [store, freshStore] of KNEX_STORES) {
  eventCursorsContract(`knex on ${store}, two connections`, async () => {
    const fresh = await freshStore();
    // The contract claims with the callers' `now` (as the engine store's contract does).
    const db = await fresh.open({ leaseClock: 'caller' });
    const second = await fresh.open({ leaseClock: 'caller' });
    return {
      cursors: new KnexEventCursors(db), engine: new KnexEngineStore(db), other: new KnexEventCursors(second), journal: new KnexJournalWriter(db),
      close: fresh.close,
    };
  });
}
