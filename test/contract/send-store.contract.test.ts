import { KnexSendStore } from '../../src/adapters/knex/knex-send.store';
import { InMemorySendStore } from '../fakes/in-memory-send-store';
import { sendStoreContract } from './send-store.contract';
import { KNEX_STORES } from '../support/stores';

sendStoreContract('in-memory fake', async () => ({ store: new InMemorySendStore(), close: async () => {} }));

for (const [store, freshStore] of KNEX_STORES) {
  sendStoreContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    // The contract drives time through the callers' `now` (see engine-store.contract.test.ts).
    return { store: new KnexSendStore(await fresh.open({ leaseClock: 'caller' })), close: fresh.close };
  });
}
