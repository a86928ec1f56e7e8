import { ListRuns } from '../../src/application/history/list-runs.use-case';
import { CursorCodec } from '../../src/domain/cursor';
import { InvalidInputError } from '../../src/domain/errors';
import { REDACTED, Redactor } from '../../src/domain/redactor';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { aRun, DAY, HOUR, iso, MINUTE, T0 } from '../mothers/journal-events';

describe('ListRuns', () => {
  let journal: InMemoryJournal;
  let listRuns: ListRuns;
  const clock = new FixedClock(T0 + DAY);

  beforeEach(async () => {
    journal = new InMemoryJournal();
    listRuns = new ListRuns(journal, new CursorCodec('k'.repeat(32)), new Redactor(['hunter22-secret']), clock);
    await journal.append([
      ...aRun({ runId: 'old', at: T0 - 3 * DAY, workflow: 'payouts' }),
      ...aRun({ runId: 'mid', at: T0, workflow: 'keeper', failure: { kind: 'http_error', message: 'token hunter22-secret refused' } }),
      ...aRun({ runId: 'new', at: T0 + 12 * HOUR, workflow: 'payouts', contract: 'hunter22-secret' }),
    ]);
  });

  it('returns the list envelope, newest first, with a cursor only when more rows exist', async () => {
    const page = await listRuns.execute({ limit: '2' });
    expect(page.items.map((r) => r.run_id)).toEqual(['new', 'mid']);
    expect(page.has_more).toBe(true);
    const next = await listRuns.execute({ limit: '2', cursor: page.cursor });
    expect(next).toMatchObject({ has_more: false, cursor: null });
    expect(next.items.map((r) => r.run_id)).toEqual(['old']);
  });

  it('reads since as a duration back from the clock or as a timestamp', async () => {
    expect((await listRuns.execute({ since: '2d' })).items.map((r) => r.run_id)).toEqual(['new', 'mid']);
    expect((await listRuns.execute({ since: iso(T0 + HOUR) })).items.map((r) => r.run_id)).toEqual(['new']);
    expect((await listRuns.execute({ until: '1d' })).items.map((r) => r.run_id)).toEqual(['mid', 'old']);
  });

  it('redacts secrets in run items', async () => {
    const page = await listRuns.execute({ workflow: 'payouts' });
    expect(page.items[0]!.contract).toBe(REDACTED);
    expect(JSON.stringify(page)).not.toContain('hunter22-secret');
  });

  it('answers each page as JSON text, the text of the page execute answers, redacted the same way', async () => {
    const first = await listRuns.execute({ limit: '2' });
    for (const query of [{}, { limit: '2' }, { limit: '2', cursor: first.cursor }, { workflow: 'payouts' }, { since: '2d' }, { workflow: 'none' }]) {
      const text = await listRuns.executeJson(query);
      expect(text).toBe(JSON.stringify(await listRuns.execute(query)));
      expect(text).not.toContain('hunter22-secret');
    }
    expect(JSON.parse(await listRuns.executeJson({ workflow: 'payouts' })).items[0].contract).toBe(REDACTED);
  });

  it('refuses bad input as JSON text as it does otherwise, naming the parameter', async () => {
    for (const [query, field] of [[{ limit: '0' }, 'limit'], [{ cursor: 'not-a-cursor' }, 'cursor'], [{ nope: '1' }, 'nope']] as const) {
      await expect(listRuns.executeJson(query)).rejects.toMatchObject({ field });
    }
  });

  it.each([
    [{ nope: '1' }, 'nope'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '501' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ status: 'bogus' }, 'status'],
    [{ session: 'prod' }, 'session'],
    [{ approval_status: 'maybe' }, 'approval_status'],
    [{ since: '5x' }, 'since'],
    [{ until: '2026-13-40T00:00:00Z' }, 'until'],
    [{ block: '-1' }, 'block'],
    [{ run_id: 'bad id' }, 'run_id'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
    [{ status: ['failed', 'succeeded'] }, 'status'],
  ])('refuses %j naming the parameter', async (query, field) => {
    const error = await listRuns.execute(query).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe(field);
  });

  it('refuses a cursor signed by another installation', async () => {
    const foreign = new CursorCodec('z'.repeat(32)).encode('runs', { createdAt: T0, id: 'mid' });
    await expect(listRuns.execute({ cursor: foreign })).rejects.toMatchObject({ field: 'cursor' });
  });

  it('never skips or repeats a row when runs arrive between pages', async () => {
    const seen: string[] = [];
    let page = await listRuns.execute({ limit: '1' });
    seen.push(...page.items.map((r) => r.run_id));
    await journal.append([...aRun({ runId: 'newer', at: T0 + 20 * HOUR }), ...aRun({ runId: 'tie', at: T0 + 12 * HOUR - MINUTE })]);
    while (page.cursor) {
      page = await listRuns.execute({ limit: '1', cursor: page.cursor });
      seen.push(...page.items.map((r) => r.run_id));
    }
    expect(seen).toEqual(['new', 'tie', 'mid', 'old']);
  });
});
