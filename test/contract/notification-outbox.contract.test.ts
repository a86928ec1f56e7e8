import { KnexNotificationOutbox } from '../../src/adapters/knex/knex-notification-outbox';
import { InMemoryNotificationOutbox } from '../fakes/in-memory-notification-outbox';
import { notificationOutboxContract } from './notification-outbox.contract';
import { KNEX_STORES, reopenable } from '../support/stores';

notificationOutboxContract('in-memory fake', async () => {
  const outbox = new InMemoryNotificationOutbox();
  return { outbox, reopen: async () => outbox, close: async () => {} };
});

for (const [store, freshStore] of KNEX_STORES) {
  notificationOutboxContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    const { first, reopen } = await reopenable(fresh, (db) => new KnexNotificationOutbox(db));
    return { outbox: first, reopen, close: fresh.close };
  });
}
