import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexOperationsGauges } from '../../src/adapters/knex/knex-operations-gauges';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryOperationsGauges } from '../fakes/in-memory-operations-gauges';
import { operationsGaugesContract } from './operations-gauges.contract';
import { KNEX_STORES } from '../support/stores';

operationsGaugesContract('in-memory fake', async () => {
  const journal = new InMemoryJournal();
  return { gauges: new InMemoryOperationsGauges(journal), append: async (e) => void (await journal.append(e)), close: async () => {} };
});

for (const [store, freshStore] of KNEX_STORES) {
  operationsGaugesContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    const db = await fresh.open();
    const writer = new KnexJournalWriter(db);
    return { gauges: new KnexOperationsGauges(db), append: async (e) => void (await writer.append(e)), close: fresh.close };
  });
}
