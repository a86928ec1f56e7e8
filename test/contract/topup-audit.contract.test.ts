import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexTopupAudit } from '../../src/adapters/knex/knex-topup-audit';
import { InMemoryTopupAudit } from '../fakes/in-memory-topup-audit';
import { topupAuditContract } from './topup-audit.contract';

topupAuditContract('in-memory fake', async () => {
  const audit = new InMemoryTopupAudit();
  return { audit, reopen: async () => audit, close: async () => {} };
});

topupAuditContract('knex on a SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-topups-'));
  const url = `sqlite:${join(dir, 'topups.db')}`;
  let db = await openDatabase(url);
  return {
    audit: new KnexTopupAudit(db),
    reopen: async () => {
      await db.destroy();
      db = await openDatabase(url);
      return new KnexTopupAudit(db);
    },
    close: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
