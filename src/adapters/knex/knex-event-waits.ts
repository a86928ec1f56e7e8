import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { EventWait, EventWaits } from '../../application/ports/event-waits';
import type { Json } from '../../domain/journal/journal-event';
import { Database } from './knex-journal.writer';

interface WaitRow {
  step_run_id: string;
  run_id: string;
  workflow: string;
  network: string;
  addresses: string;
  event: string;
  where_expr: string | null;
  confirmations: number | string;
  context: string;
  next_block: number | string;
  expires_at: number | string;
  matched: string | null;
}

const toWait = (r: WaitRow): EventWait => ({
  stepRunId: r.step_run_id, runId: r.run_id, workflow: r.workflow, network: r.network, addresses: JSON.parse(r.addresses) as string[],
  event: r.event, ...(r.where_expr !== null ? { where: r.where_expr } : {}), confirmations: Number(r.confirmations),
  context: JSON.parse(r.context) as Record<string, Json>, nextBlock: BigInt(String(r.next_block)), expiresAt: Number(r.expires_at),
  match: r.matched === null ? null : (JSON.parse(r.matched) as Json),
});

/** The waits of `wait_event` steps on knex, portable SQL: an insert that keeps the first, and compare-and-set moves. */
@injectable()
export class KnexEventWaits implements EventWaits {
  constructor(@inject(Database) private readonly db: Knex) {}

  async open(wait: Omit<EventWait, 'match'>): Promise<EventWait> {
    await this.db.raw(
      `INSERT INTO event_waits (step_run_id, run_id, workflow, network, addresses, event, where_expr, confirmations, context, next_block, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (step_run_id) DO NOTHING`,
      [
        wait.stepRunId, wait.runId, wait.workflow, wait.network, JSON.stringify(wait.addresses), wait.event, wait.where ?? null, wait.confirmations,
        JSON.stringify(wait.context), Number(wait.nextBlock), wait.expiresAt,
      ],
    );
    return (await this.get(wait.stepRunId))!;
  }

  async get(stepRunId: string): Promise<EventWait | undefined> {
    const row = (await this.db('event_waits').where({ step_run_id: stepRunId }).first()) as WaitRow | undefined;
    return row ? toWait(row) : undefined;
  }

  async pending(): Promise<EventWait[]> {
    return ((await this.db('event_waits').whereNull('matched').orderBy('step_run_id')) as WaitRow[]).map(toWait);
  }

  async advance(stepRunId: string, expected: bigint, next: bigint, match?: Json): Promise<boolean> {
    const changed = await this.db('event_waits').where({ step_run_id: stepRunId, next_block: Number(expected) }).whereNull('matched')
      .update({ next_block: Number(next), ...(match !== undefined ? { matched: JSON.stringify(match) } : {}) });
    return Number(changed) === 1;
  }

  async close(stepRunId: string): Promise<void> {
    await this.db('event_waits').where({ step_run_id: stepRunId }).delete();
  }
}
