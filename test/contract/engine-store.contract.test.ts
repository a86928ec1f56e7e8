import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexEngineStore } from '../../src/adapters/knex/knex-engine.store';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../src/adapters/knex/knex-run.repository';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { engineStoreContract } from './engine-store.contract';

engineStoreContract('in-memory fake', async () => {
  const store = new InMemoryEngineStore();
  const journal = new InMemoryJournal({ schedule: store });
  return { store, journal, stream: (runId) => journal.stream(runId), close: async () => {} };
});

engineStoreContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-engine-'));
  const db = await openDatabase(`sqlite:${join(dir, 'engine.db')}`);
  const runs = new KnexRunRepository(db);
  return {
    store: new KnexEngineStore(db),
    journal: new KnexJournalWriter(db),
    stream: (runId) => runs.stream(runId),
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
