import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexRetentionRepository } from '../../src/adapters/knex/knex-retention.repository';
import { KnexRunRepository } from '../../src/adapters/knex/knex-run.repository';
import { KnexSpendLedger } from '../../src/adapters/knex/knex-spend-ledger';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemorySpendLedger } from '../fakes/in-memory-spend';
import { spendContract, type SpendStorage } from './spend.contract';

spendContract('in-memory fakes', async () => {
  const ledger = new InMemorySpendLedger();
  const journal = new InMemoryJournal({ spend: ledger });
  const storage: SpendStorage = { ledger, journal, retention: journal };
  return { ...storage, reopen: async () => storage, close: async () => {} };
});

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

spendContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-spend-'));
  const url = `sqlite:${join(dir, 'spend.db')}`;
  let db = await openDatabase(url);
  return {
    ...knexStorage(db),
    reopen: async () => {
      await db.destroy();
      db = await openDatabase(url);
      return knexStorage(db);
    },
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
