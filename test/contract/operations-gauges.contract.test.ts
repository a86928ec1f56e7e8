import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexOperationsGauges } from '../../src/adapters/knex/knex-operations-gauges';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryOperationsGauges } from '../fakes/in-memory-operations-gauges';
import { operationsGaugesContract } from './operations-gauges.contract';

operationsGaugesContract('in-memory fake', async () => {
  const journal = new InMemoryJournal();
  return { gauges: new InMemoryOperationsGauges(journal), append: async (e) => void (await journal.append(e)), close: async () => {} };
});

operationsGaugesContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-contract-'));
  const db = await openDatabase(`sqlite:${join(dir, 'journal.db')}`);
  const writer = new KnexJournalWriter(db);
  return {
    gauges: new KnexOperationsGauges(db),
    append: async (e) => void (await writer.append(e)),
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
