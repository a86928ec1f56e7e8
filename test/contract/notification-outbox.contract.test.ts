import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexNotificationOutbox } from '../../src/adapters/knex/knex-notification-outbox';
import { InMemoryNotificationOutbox } from '../fakes/in-memory-notification-outbox';
import { notificationOutboxContract } from './notification-outbox.contract';

notificationOutboxContract('in-memory fake', async () => {
  const outbox = new InMemoryNotificationOutbox();
  return { outbox, reopen: async () => outbox, close: async () => {} };
});

notificationOutboxContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-notifications-'));
  const url = `sqlite:${join(dir, 'notifications.db')}`;
  let db = await openDatabase(url);
  return {
    outbox: new KnexNotificationOutbox(db),
    reopen: async () => {
      await db.destroy();
      db = await openDatabase(url);
      return new KnexNotificationOutbox(db);
    },
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
