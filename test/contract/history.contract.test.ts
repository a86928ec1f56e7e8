import { KnexHistoryRepository } from '../../src/adapters/knex/knex-history.repository';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { historyContract, type HistoryPorts } from './history.contract';
import type { Knex } from 'knex';
import { KNEX_STORES } from '../support/stores';

historyContract('in-memory fake', async () => ({ ports: new InMemoryJournal(), close: async () => {} }));

function knexPorts(db: Knex): HistoryPorts {
  const writer = new KnexJournalWriter(db);
  const repo = new KnexHistoryRepository(db);
  return {
    append: (e) => writer.append(e),
    listSends: (f, p) => repo.listSends(f, p),
    listSendItems: (f, p, explorer) => repo.listSendItems(f, p, explorer),
    listApprovals: (f, p) => repo.listApprovals(f, p),
    listWaiting: (f, p) => repo.listWaiting(f, p),
    listApprovalItems: (f, p) => repo.listApprovalItems(f, p),
    listWaitingItems: (f, p) => repo.listWaitingItems(f, p),
    listReorgs: (f, p) => repo.listReorgs(f, p),
    listSessions: (f, p) => repo.listSessions(f, p),
    listSessionItems: (f, p) => repo.listSessionItems(f, p),
    listWorkflows: (known, limit, after) => repo.listWorkflows(known, limit, after),
    sendsOfRuns: (ids) => repo.sendsOfRuns(ids),
    sendItemsOfRuns: (ids, explorer) => repo.sendItemsOfRuns(ids, explorer),
  };
}

for (const [store, freshStore] of KNEX_STORES) {
  historyContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    return { ports: knexPorts(await fresh.open()), close: fresh.close };
  });
}
