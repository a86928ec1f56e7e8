import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexEventWaits } from '../../src/adapters/knex/knex-event-waits';
import { InMemoryEventWaits } from '../fakes/in-memory-event-waits';
import { eventWaitsContract } from './event-waits.contract';

eventWaitsContract('in-memory fake', async () => {
  const waits = new InMemoryEventWaits();
  return { waits, other: waits, close: async () => {} };
});

eventWaitsContract('knex on a SQLite file, two connections', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-waits-'));
  const file = `sqlite:${join(dir, 'waits.db')}`;
  const db = await openDatabase(file);
  const second = await openDatabase(file);
  return {
    waits: new KnexEventWaits(db), other: new KnexEventWaits(second),
    close: async () => {
      await second.destroy();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
