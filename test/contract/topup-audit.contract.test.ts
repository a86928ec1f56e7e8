import { KnexTopupAudit } from '../../src/adapters/knex/knex-topup-audit';
import { InMemoryTopupAudit } from '../fakes/in-memory-topup-audit';
import { topupAuditContract } from './topup-audit.contract';
import { KNEX_STORES, reopenable } from '../support/stores';

topupAuditContract('in-memory fake', async () => {
  const audit = new InMemoryTopupAudit();
  return { audit, reopen: async () => audit, close: async () => {} };
});

for (const [store, freshStore] of KNEX_STORES) {
  topupAuditContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    const { first, reopen } = await reopenable(fresh, (db) => new KnexTopupAudit(db));
    return { audit: first, reopen, close: fresh.close };
  });
}
