import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexSendStore } from '../../src/adapters/knex/knex-send.store';
import { InMemorySendStore } from '../fakes/in-memory-send-store';
import { openFreshPostgres } from '../support/postgres';
import { sendStoreContract } from './send-store.contract';

sendStoreContract('in-memory fake', async () => ({ store: new InMemorySendStore(), close: async () => {} }));

sendStoreContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-sends-'));
  const db = await openDatabase(`sqlite:${join(dir, 'sends.db')}`);
  return {
    store: new KnexSendStore(db),
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

sendStoreContract('knex on PostgreSQL', async () => {
  const pg = await openFreshPostgres();
  return { store: new KnexSendStore(pg.db), close: pg.close };
});
