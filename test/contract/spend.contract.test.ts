import type { Knex } from 'knex';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexRetentionRepository } from '../../src/adapters/knex/knex-retention.repository';
import { KnexRunRepository } from '../../src/adapters/knex/knex-run.repository';
import { KnexSpendLedger } from '../../src/adapters/knex/knex-spend-ledger';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemorySpendLedger } from '../fakes/in-memory-spend';
import { spendContract, type OpenSpend, type SpendStorage } from './spend.contract';
import { spendReorgsContract } from './spend-reorgs.contract';
import { KNEX_STORES, reopenable } from '../support/stores';

const inMemory = async (): Promise<OpenSpend> => {
  const ledger = new InMemorySpendLedger();
  const journal = new InMemoryJournal({ spend: ledger });
  const storage: SpendStorage = { ledger, journal, retention: journal };
  return { ...storage, reopen: async () => storage, close: async () => {} };
};
spendContract('in-memory fakes', inMemory);
spendReorgsContract('in-memory fakes', inMemory);

function knexStorage(db: Knex): SpendStorage {
  const writer = new KnexJournalWriter(db);
  const runs = new KnexRunRepository(db);
  return {
    ledger: new KnexSpendLedger(db),
    journal: {
      append: (e) => writer.append(e),
      appendAll: (b, cb) => writer.appendAll(b, cb),
      list: (f, p) => runs.list(f, p),
      listItems: (f, p) => runs.listItems(f, p),
      get: (id) => runs.get(id),
      stream: (id) => runs.stream(id),
      streams: (ids) => runs.streams(ids),
      stepItemsOfRuns: (ids) => runs.stepItemsOfRuns(ids),
    },
    retention: new KnexRetentionRepository(db),
  };
}

for (const [store, freshStore] of KNEX_STORES) {
  const onKnex = async (): Promise<OpenSpend> => {
    const fresh = await freshStore();
    const { first, reopen } = await reopenable(fresh, knexStorage);
    return { ...first, reopen, close: fresh.close };
  };
  spendContract(`knex on ${store}`, onKnex);
  spendReorgsContract(`knex on ${store}`, onKnex);
}
