import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../src/adapters/knex/knex-run.repository';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { journalContract, type JournalPorts } from './journal.contract';

journalContract('in-memory fake', async () => ({ ports: new InMemoryJournal(), close: async () => {} }));

journalContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-contract-'));
  const db = await openDatabase(`sqlite:${join(dir, 'journal.db')}`);
  const writer = new KnexJournalWriter(db);
  const repo = new KnexRunRepository(db);
  const ports: JournalPorts = {
    append: (e) => writer.append(e),
    appendAll: (b, cb) => writer.appendAll(b, cb),
    list: (f, p) => repo.list(f, p),
    listItems: (f, p) => repo.listItems(f, p),
    get: (id) => repo.get(id),
    stream: (id) => repo.stream(id),
    streams: (ids, types) => repo.streams(ids, types),
    stepItemsOfRuns: (ids) => repo.stepItemsOfRuns(ids),
    ping: () => repo.ping(),
    sizes: () => repo.sizes(),
  };
  return {
    ports,
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
