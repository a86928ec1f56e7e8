import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexEngineStore } from '../../src/adapters/knex/knex-engine.store';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { engineStoreContract } from './engine-store.contract';

engineStoreContract('in-memory fake', async () => ({ store: new InMemoryEngineStore(), close: async () => {} }));

engineStoreContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-engine-'));
  const db = await openDatabase(`sqlite:${join(dir, 'engine.db')}`);
  return {
    store: new KnexEngineStore(db),
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
