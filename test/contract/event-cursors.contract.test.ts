import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexEngineStore } from '../../src/adapters/knex/knex-engine.store';
import { KnexEventCursors } from '../../src/adapters/knex/knex-event-cursors';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryEventCursors } from '../fakes/in-memory-event-cursors';
import { eventCursorsContract } from './event-cursors.contract';

eventCursorsContract('in-memory fake', async () => {
  const engine = new InMemoryEngineStore();
  const cursors = new InMemoryEventCursors(engine);
  return { cursors, engine, other: cursors, close: async () => {} };
});

eventCursorsContract('knex on a SQLite file, two connections', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-events-'));
  const file = `sqlite:${join(dir, 'events.db')}`;
  const db = await openDatabase(file);
  const second = await openDatabase(file);
  return {
    cursors: new KnexEventCursors(db), engine: new KnexEngineStore(db), other: new KnexEventCursors(second),
    close: async () => {
      await second.destroy();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
