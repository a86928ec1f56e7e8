/**
 * PostgreSQL's side rows of the relayer and step id filters keep a finished run's page line (migration 0029), kept
 * by statement triggers whoever writes: after every change, each side row's line is its run's (NULL while the run
 * goes on), and a page of one relayer or step id answers what the runs themselves render. SQLite has no such
 * column (its page joins in-process).
 */
import type { Knex } from 'knex';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRetentionRepository } from '../../../src/adapters/knex/knex-retention.repository';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { LINED_SIDE_TABLES } from '../../../src/adapters/knex/migration-side-lines';
import { toRunItem } from '../../../src/application/history/items';
import type { RunFilter } from '../../../src/application/ports/run-repository';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { aFinish, aPark, aResume, aRun, HOUR, MINUTE, T0 } from '../../mothers/journal-events';
import { eachFreshDb, freshPostgresStore } from '../../support/stores';

/** Side rows whose line is not their run's (the run's line once finished, else NULL), and how many hold a line. */
async function sideLines(db: Knex): Promise<{ wrong: string[]; lined: number }> {
  const wrong: string[] = [];
  let lined = 0;
  for (const s of LINED_SIDE_TABLES) {
    const rows = (await db.raw(`SELECT x.${s.column} AS v, x.run_id, x.line IS NOT NULL AS lined,
        x.line IS DISTINCT FROM (CASE WHEN r.finished_at IS NOT NULL THEN r.line END) AS wrong
      FROM ${s.table} x LEFT JOIN runs r ON r.run_id = x.run_id`)).rows as Array<{ v: string; run_id: string; lined: boolean; wrong: boolean }>;
    for (const row of rows) {
      if (row.wrong) wrong.push(`${s.table} ${row.v} ${row.run_id}`);
      if (row.lined) lined++;
    }
  }
  return { wrong, lined };
}

const withSend = (runId: string, at: number, relayer: string, status?: 'running'): JournalEvent[] =>
  aRun({ runId, at, steps: [{ stepId: 'quote' }], send: { relayer, stepId: 'pay' }, ...(status ? { status } : {}) });

describe('side rows keep finished runs\' lines on PostgreSQL', () => {
  const fresh = eachFreshDb(freshPostgresStore);
  let db: Knex;
  let writer: KnexJournalWriter;
  let runs: KnexRunRepository;
  beforeEach(() => {
    db = fresh.db;
    writer = new KnexJournalWriter(db);
    runs = new KnexRunRepository(db);
  });

  /** Every side row right, `lined` of them with a line; each page of one relayer or step id as the runs render it. */
  async function expectKept(lined: number): Promise<void> {
    expect(await sideLines(db)).toEqual({ wrong: [], lined });
    const filters: RunFilter[] = [{ relayer: 'ops' }, { relayer: 'treasury' }, { stepId: 'quote' }, { stepId: 'pay' }];
    for (const filter of filters) {
      const page = { limit: 50 };
      const read = (await runs.listItems(filter, page)).map((item) => item.json);
      const rendered = (await runs.list(filter, page)).map((run) => JSON.stringify(toRunItem(run)));
      expect({ filter, read }).toEqual({ filter, read: rendered });
    }
  }

  it('after runs start, finish in the append that started them or a later one, park, wake, change by hand and are pruned', async () => {
    // Started and finished in one append (one combined statement); one still going; one parked on its send.
    await writer.append([...withSend('done', T0, 'ops'), ...withSend('going', T0 + MINUTE, 'ops', 'running'),
      ...aRun({ runId: 'parked', at: T0 + 2 * MINUTE, steps: [{ stepId: 'quote' }], park: { waitKind: 'delay' } })]);
    // done: quote, pay, ops; going: quote, pay, ops (unlined); parked: quote (unlined).
    await expectKept(3);
    await writer.append([aFinish('going', T0 + HOUR), aResume('parked', T0 + HOUR), aPark('parked', T0 + HOUR + 1, { waitKind: 'delay' })]);
    await expectKept(6);
    await writer.append([aResume('parked', T0 + 2 * HOUR), aFinish('parked', T0 + 2 * HOUR, 'failed', 'http_error')]);
    await expectKept(7);
    // Any writer of `runs`: a finished run changed by hand, another opened again by hand (its side rows lose the line).
    await db('runs').where({ run_id: 'done' }).update({ error_kind: 'manual_fix' });
    await db('runs').where({ run_id: 'going' }).update({ finished_at: null, duration_ms: null, status: 'running' });
    await expectKept(4);
    // A side row added by hand for a finished run takes its line.
    await db('run_relayers').insert({ relayer: 'treasury', created_at: T0, run_id: 'done' });
    await expectKept(5);
    // `done` pruned with its side rows: `going` (opened again) and `parked`'s quote are left.
    await new KnexRetentionRepository(db).pruneBefore(T0 + 30 * 1000);
    await expectKept(1);
  });

  it('after an import of finished runs in many batches (appendAll)', async () => {
    async function* batches(): AsyncIterable<JournalEvent[]> {
      for (let b = 0; b < 4; b++) yield Array.from({ length: 10 }, (_, i) => withSend(`imp-${b}-${i}`, T0 + b * MINUTE + i, i % 2 ? 'ops' : 'treasury')).flat();
    }
    await writer.appendAll(batches());
    await expectKept(40 * 3);
  });
});
