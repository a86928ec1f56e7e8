import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { PruneCounts, RetentionRepository } from '../../application/ports/retention-repository';
import { Database } from './knex-journal.writer';
import { RUN_LIST_TABLES } from './migrations';
import { STEP_RUNS_TABLE } from './step-runs-store';

const OLD_RUNS = 'SELECT run_id FROM runs WHERE created_at < ?';

/** Tables that hold rows of a run, and how to find the rows of the runs before the cut. */
const DEPENDENTS: ReadonlyArray<readonly [keyof PruneCounts | null, string, string]> = [
  ['events', 'events', `stream IN (${OLD_RUNS})`],
  ['sends', 'sends', `run_id IN (${OLD_RUNS})`],
  ['approvals', 'approvals', `run_id IN (${OLD_RUNS})`],
  ['reorgs', 'reorgs', `run_id IN (${OLD_RUNS})`],
  [null, STEP_RUNS_TABLE, `run_id IN (${OLD_RUNS})`],
  ...Object.values(RUN_LIST_TABLES).map(({ table }) => [null, table, 'created_at < ?'] as const),
];

@injectable()
export class KnexRetentionRepository implements RetentionRepository {
  constructor(@inject(Database) private readonly db: Knex) {}

  async countBefore(cut: number): Promise<PruneCounts> {
    const counts: PruneCounts = { runs: 0, events: 0, sends: 0, approvals: 0, reorgs: 0 };
    counts.runs = await this.count(this.db, 'runs', 'created_at < ?', cut);
    for (const [key, table, where] of DEPENDENTS) if (key) counts[key] = await this.count(this.db, table, where, cut);
    return counts;
  }

  async pruneBefore(cut: number, onStep?: (done: number, steps: number) => void): Promise<PruneCounts> {
    const steps = DEPENDENTS.length + 1;
    return this.db.transaction(async (trx) => {
      const counts: PruneCounts = { runs: 0, events: 0, sends: 0, approvals: 0, reorgs: 0 };
      for (const [i, [key, table, where]] of DEPENDENTS.entries()) {
        const removed = await trx(table).whereRaw(where, [cut]).delete();
        if (key) counts[key] = removed;
        onStep?.(i + 1, steps);
      }
      counts.runs = await trx('runs').where('created_at', '<', cut).delete();
      onStep?.(steps, steps);
      return counts;
    });
  }

  private async count(db: Knex, table: string, where: string, cut: number): Promise<number> {
    const row = (await db(table).whereRaw(where, [cut]).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }
}
