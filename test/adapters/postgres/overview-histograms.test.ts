/**
 * The workflows overview on PostgreSQL reads each workflow's duration histogram only when its stats row changed
 * (the row version's `xmin`), and answers what a fresh reader answers either way.
 */
import { KnexHistoryRepository } from '../../../src/adapters/knex/knex-history.repository';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { statementReadersOf } from '../../../src/adapters/knex/statement-readers';
import { aRun, MINUTE, T0 } from '../../mothers/journal-events';
import { eachFreshDb, freshPostgresStore } from '../../support/stores';

describe('the workflows overview on PostgreSQL', () => {
  const fixture = eachFreshDb(freshPostgresStore);
  afterEach(() => jest.restoreAllMocks());

  /** The overview as a reader that has read nothing before answers it (another pool: other readers). */
  const fresh = async (): Promise<unknown> => new KnexHistoryRepository(await fixture.store.open()).listWorkflows([], 50);
  /** The histograms the overview's statements sent back, by workflow ('' where left out). */
  const histogramsSent = (): Array<Record<string, string>> => {
    const readers = statementReadersOf(fixture.db)!;
    const select = readers.select.bind(readers);
    const sent: Array<Record<string, string>> = [];
    jest.spyOn(readers, 'select').mockImplementation(async (text, bindings) => {
      const rows = await select(text, bindings);
      const stats = rows[0]?.stats;
      if (typeof stats === 'string') {
        sent.push(Object.fromEntries(stats.split('\n').map((line) => [JSON.parse(line.split('\t')[0]!) as string, line.slice(line.lastIndexOf('\t') + 1)])));
      }
      return rows;
    });
    return sent;
  };

  it('reads a histogram again only after its stats row changed, and answers as a fresh reader does', async () => {
    const writer = new KnexJournalWriter(fixture.db);
    await writer.append([...aRun({ runId: 'p1', workflow: 'payouts', at: T0 }), ...aRun({ runId: 'k1', workflow: 'keeper', at: T0 + MINUTE })]);
    const history = new KnexHistoryRepository(fixture.db);
    const sent = histogramsSent();

    const first = await history.listWorkflows([], 50);
    expect(first.map((o) => o.workflow)).toEqual(['keeper', 'payouts']);
    expect(first.every((o) => o.stats!.successCount === 1)).toBe(true);
    expect(first).toEqual(await fresh());
    expect(Object.values(sent[0]!).every((h) => h.startsWith('{') || h.startsWith('['))).toBe(true);

    // Nothing changed: both histograms left out, the same answer.
    expect(await history.listWorkflows([], 50)).toEqual(first);
    expect(sent[1]).toEqual({ keeper: '', payouts: '' });

    // A run of payouts ends: its histogram is read again, keeper's still left out.
    await writer.append(aRun({ runId: 'p2', workflow: 'payouts', at: T0 + 2 * MINUTE }));
    const third = await history.listWorkflows([], 50);
    expect(sent[2]!.keeper).toBe('');
    expect(sent[2]!.payouts).not.toBe('');
    expect(third.find((o) => o.workflow === 'payouts')!.stats!.successCount).toBe(2);
    expect(third).toEqual(await fresh());
  });
});
