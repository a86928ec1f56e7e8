import { KnexEngineStore } from '../../src/adapters/knex/knex-engine.store';
import { KnexEventCursors } from '../../src/adapters/knex/knex-event-cursors';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryEventCursors } from '../fakes/in-memory-event-cursors';
import { KNEX_STORES } from '../support/stores';
import { eventCursorsContract } from './event-cursors.contract';

eventCursorsContract('in-memory fake', async () => {
  const engine = new InMemoryEngineStore();
  const cursors = new InMemoryEventCursors(engine);
  return { cursors, engine, other: cursors, close: async () => {} };
});

for (const [store, freshStore] of KNEX_STORES) {
  eventCursorsContract(`knex on ${store}, two connections`, async () => {
    const fresh = await freshStore();
    // The contract claims with the callers' `now` (as the engine store's contract does).
    const db = await fresh.open({ leaseClock: 'caller' });
    const second = await fresh.open({ leaseClock: 'caller' });
    return { cursors: new KnexEventCursors(db), engine: new KnexEngineStore(db), other: new KnexEventCursors(second), close: fresh.close };
  });
}
