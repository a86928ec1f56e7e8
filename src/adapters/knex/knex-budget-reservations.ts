import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { BudgetReservations } from '../../application/ports/budget-reservations';
import { isSqlite } from './dialect';
import { Database } from './knex-journal.writer';
import { selectOnPool } from './sqlite-client';

type Row = Record<string, unknown>;
const IN_FLIGHT = ['queued', 'parked', 'submitted'];

/** Value caps' reservations on knex: sends in flight from the journal's send projection, token grants in their own table. */
@injectable()
export class KnexBudgetReservations implements BudgetReservations {
  constructor(@inject(Database) private readonly db: Knex) {}

  /**
   * On SQLite the statement is written here and run as a prepared statement on knex's connection (selectOnPool):
   * it is part of the budget check before a send, where building the query with knex cost more than running it
   * (docs/benchmarks.md, issue #14, seventh pass).
   */
  async valueInFlight(workflows: readonly string[], relayers: readonly string[] | undefined): Promise<bigint> {
    if (!workflows.length || (relayers && !relayers.length)) return 0n;
    let rows: Row[];
    if (isSqlite(this.db)) {
      const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');
      const sql = `SELECT value_wei FROM sends WHERE status IN (${marks(IN_FLIGHT.length)}) AND workflow IN (${marks(workflows.length)})`
        + ` AND session = 'live'${relayers ? ` AND relayer IN (${marks(relayers.length)})` : ''}`;
      rows = await selectOnPool(this.db, sql, [...IN_FLIGHT, ...workflows, ...(relayers ?? [])]);
    } else {
      let q = this.db('sends').whereIn('status', IN_FLIGHT).whereIn('workflow', [...workflows]).where({ session: 'live' });
      if (relayers) q = q.whereIn('relayer', [...relayers]);
      rows = (await q.select('value_wei')) as Row[];
    }
    return rows.reduce((sum, r) => sum + BigInt(r.value_wei as string), 0n);
  }

  async tokenGranted(budget: string, token: string, since: number): Promise<bigint> {
    const rows = (await this.db('budget_token_grants').where({ budget, token }).andWhere('granted_at', '>=', since).select('amount')) as Row[];
    return rows.reduce((sum, r) => sum + BigInt(r.amount as string), 0n);
  }

  async grantToken(grant: { budget: string; token: string; stepRunId: string; amount: bigint; at: number }): Promise<void> {
    await this.db('budget_token_grants')
      .insert({ budget: grant.budget, token: grant.token, step_run_id: grant.stepRunId, amount: grant.amount.toString(), granted_at: grant.at })
      .onConflict(['budget', 'token', 'step_run_id', 'granted_at']).ignore();
  }
}
