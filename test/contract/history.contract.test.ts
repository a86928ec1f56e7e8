import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexHistoryRepository } from '../../src/adapters/knex/knex-history.repository';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { historyContract, type HistoryPorts } from './history.contract';

historyContract('in-memory fake', async () => ({ ports: new InMemoryJournal(), close: async () => {} }));

historyContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-history-contract-'));
  const db = await openDatabase(`sqlite:${join(dir, 'journal.db')}`);
  const writer = new KnexJournalWriter(db);
  const repo = new KnexHistoryRepository(db);
  const ports: HistoryPorts = {
    append: (e) => writer.append(e),
    listSends: (f, p) => repo.listSends(f, p),
    listSendItems: (f, p, explorer) => repo.listSendItems(f, p, explorer),
    listApprovals: (f, p) => repo.listApprovals(f, p),
    listWaiting: (f, p) => repo.listWaiting(f, p),
    listApprovalItems: (f, p) => repo.listApprovalItems(f, p),
    listWaitingItems: (f, p) => repo.listWaitingItems(f, p),
    listReorgs: (f, p) => repo.listReorgs(f, p),
    listSessions: (f, p) => repo.listSessions(f, p),
    listWorkflows: (known, limit, after) => repo.listWorkflows(known, limit, after),
    sendsOfRuns: (ids) => repo.sendsOfRuns(ids),
    sendItemsOfRuns: (ids, explorer) => repo.sendItemsOfRuns(ids, explorer),
  };
  return {
    ports,
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
