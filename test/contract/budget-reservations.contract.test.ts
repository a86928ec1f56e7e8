import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/knex/connection';
import { KnexBudgetReservations } from '../../src/adapters/knex/knex-budget-reservations';
import { KnexJournalWriter } from '../../src/adapters/knex/knex-journal.writer';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryBudgetReservations, InMemorySpendLedger } from '../fakes/in-memory-spend';
import { budgetReservationsContract } from './budget-reservations.contract';

budgetReservationsContract('in-memory fakes', async () => {
  const ledger = new InMemorySpendLedger();
  const journal = new InMemoryJournal({ spend: ledger });
  const reservations = InMemoryBudgetReservations.over(journal);
  return { journal, reservations, other: reservations, close: async () => {} };
});

// Two knex instances on one file: two connections, as two processes sharing the database would have.
budgetReservationsContract('knex on a SQLite file, two connections', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainflow-budget-'));
  const url = `sqlite:${join(dir, 'budget.db')}`;
  const db = await openDatabase(url);
  const second = await openDatabase(url);
  return {
    journal: new KnexJournalWriter(db),
    reservations: new KnexBudgetReservations(db),
    other: new KnexBudgetReservations(second),
    close: async () => {
      await db.destroy();
      await second.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
