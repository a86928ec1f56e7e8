import { KnexBudgetReservations } from '../../src/adapters/knex/knex-budget-reservations';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryBudgetReservations, InMemorySpendLedger } from '../fakes/in-memory-spend';
import { budgetReservationsContract } from './budget-reservations.contract';
import { KNEX_STORES } from '../support/stores';

budgetReservationsContract('in-memory fakes', async () => {
  const ledger = new InMemorySpendLedger();
  const journal = new InMemoryJournal({ spend: ledger });
  const reservations = InMemoryBudgetReservations.over(journal);
  return { journal, reservations, other: reservations, close: async () => {} };
});

// Two knex instances on one database: two connections, as two processes sharing the database would have.
for (const [store, freshStore] of KNEX_STORES) {
  budgetReservationsContract(`knex on ${store}, two connections`, async () => {
    const fresh = await freshStore();
    const db = await fresh.open();
    return {
      journal: new KnexJournalWriter(db),
      reservations: new KnexBudgetReservations(db),
      other: new KnexBudgetReservations(await fresh.open()),
      close: fresh.close,
    };
  });
}
