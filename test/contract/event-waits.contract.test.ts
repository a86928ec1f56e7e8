import { KnexEventWaits } from '../../src/adapters/knex/knex-event-waits';
import { InMemoryEventWaits } from '../fakes/in-memory-event-waits';
import { KNEX_STORES } from '../support/stores';
import { eventWaitsContract } from './event-waits.contract';

eventWaitsContract('in-memory fake', async () => {
  const waits = new InMemoryEventWaits();
  return { waits, other: waits, close: async () => {} };
});

for (const [store, freshStore] of KNEX_STORES) {
  eventWaitsContract(`knex on ${store}, two connections`, async () => {
    const fresh = await freshStore();
    return { waits: new KnexEventWaits(await fresh.open()), other: new KnexEventWaits(await fresh.open()), close: fresh.close };
  });
}
