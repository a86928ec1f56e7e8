import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { EventLag, InFlightCount, OperationsGauges, WaitingCount } from '../../application/ports/operations-gauges';
import { Database } from './knex-journal.writer';

/** A send not yet settled; test and replay sends stay `queued` with their simulation and never fly. */
const IN_FLIGHT = ['queued', 'parked', 'submitted'];

/** The gauges' grouped counts, each one query on the projections (the waiting one on its partial indexes). */
@injectable()
export class KnexOperationsGauges implements OperationsGauges {
  constructor(@inject(Database) private readonly db: Knex) {}

  async runsWaiting(): Promise<WaitingCount[]> {
    // The literal `status = 'waiting'` lets SQLite pick the waiting list's partial indexes.
    const rows = (await this.db('runs').whereRaw("status = 'waiting'").groupBy('workflow', 'wait_kind')
      .select('workflow', 'wait_kind').count({ n: '*' })) as Array<{ workflow: string; wait_kind: string | null; n: number | string }>;
    return rows.map((r) => ({ workflow: r.workflow, waitKind: r.wait_kind ?? 'unknown', runs: Number(r.n) }));
  }

  async sendsInFlight(): Promise<InFlightCount[]> {
    const rows = (await this.db('sends').where({ session: 'live' }).whereIn('status', IN_FLIGHT).groupBy('relayer')
      .select('relayer').count({ n: '*' })) as Array<{ relayer: string; n: number | string }>;
    return rows.map((r) => ({ relayer: r.relayer, sends: Number(r.n) }));
  }

  async eventLag(): Promise<EventLag[]> {
    const rows = (await this.db('workflow_states').whereNotNull('cursor_block').whereNotNull('head_block')
      .select('workflow', 'cursor_block', 'head_block')) as Array<{ workflow: string; cursor_block: number | string; head_block: number | string }>;
    return rows.map((r) => ({ workflow: r.workflow, lagBlocks: Math.max(0, Number(r.head_block) - Number(r.cursor_block)) }));
  }
}
