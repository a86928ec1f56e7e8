import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../src/adapters/knex/knex-run.repository';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { journalContract, type JournalPorts } from './journal.contract';
import type { Knex } from 'knex';
import { KNEX_STORES } from '../support/stores';

journalContract('in-memory fake', async () => ({ ports: new InMemoryJournal(), close: async () => {} }));

function knexPorts(db: Knex): JournalPorts {
  const writer = new KnexJournalWriter(db);
  const repo = new KnexRunRepository(db);
  return {
    append: (e) => writer.append(e),
    appendAll: (b, cb) => writer.appendAll(b, cb),
    list: (f, p) => repo.list(f, p),
    listItems: (f, p) => repo.listItems(f, p),
    get: (id) => repo.get(id),
    stream: (id) => repo.stream(id),
    streams: (ids, types) => repo.streams(ids, types),
    stepItemsOfRuns: (ids) => repo.stepItemsOfRuns(ids),
    kind: () => repo.kind(),
    ping: () => repo.ping(),
    sizes: () => repo.sizes(),
  };
}

for (const [store, freshStore] of KNEX_STORES) {
  journalContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    return { ports: knexPorts(await fresh.open()), close: fresh.close };
  });
}
