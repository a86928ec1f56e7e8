import { performance } from 'node:perf_hooks';
import type { Knex } from 'knex';
import { POLL_ALONE_MS } from '../../../src/adapters/knex';
import { PgReaders } from '../../../src/adapters/postgres/pg-readers';
import { countImmediateTurns } from '../../support/event-loop-turns';
import { freshPostgresStore, type FreshStore } from '../../support/stores';

/** PostgreSQL's list readers (issue #29): one prepared statement per page, polled for on a server while alone. */
describe('PostgreSQL list readers', () => {
  let store: FreshStore;
  let db: Knex;
  const pool = (): ConstructorParameters<typeof PgReaders>[0] => db.client as ConstructorParameters<typeof PgReaders>[0];

  beforeEach(async () => {
    store = await freshPostgresStore();
    db = await store.open();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
  });

  it('answers a page as one text of its lines, and an empty page as the empty text', async () => {
    const readers = new PgReaders(pool());
    const lines = "SELECT line FROM (VALUES (1, 'a\tb'), (2, 'c\td')) AS v(n, line) WHERE n >= $1 ORDER BY n";
    expect(await readers.selectText(lines, [1])).toBe('a\tb\nc\td');
    expect(await readers.selectText(lines, [3])).toBe('');
    await expect(readers.select('SELECT nothing FROM nowhere', [])).rejects.toThrow(/nowhere/);
  });

  it('keeps the event loop turning while a read runs alone, never past its answer or POLL_ALONE_MS, and not beside another read', async () => {
    const readers = new PgReaders(pool(), POLL_ALONE_MS);
    await Promise.all([readers.select('SELECT 1 AS x', []), readers.select('SELECT 1 AS x', [])]);
    const turns = countImmediateTurns();
    const slow = 'SELECT pg_sleep(0.02) IS NULL AS slept';
    const started = performance.now();
    expect(await readers.select(slow, [])).toEqual([{ slept: false }]);
    expect(turns.length).toBeGreaterThan(1);
    expect(Math.max(...turns) - started).toBeLessThanOrEqual(POLL_ALONE_MS + 1);

    // Two reads side by side: the first is polled only until the second starts (one turn), the second not at all.
    turns.length = 0;
    expect(await Promise.all([readers.select(slow, []), readers.select(slow, [])])).toEqual([[{ slept: false }], [{ slept: false }]]);
    expect(turns.length).toBeLessThanOrEqual(2);
  });

  it("never polls for a command's reads", async () => {
    const readers = new PgReaders(pool());
    await readers.select('SELECT 1 AS x', []);
    const turns = countImmediateTurns();
    await readers.select('SELECT pg_sleep(0.01) IS NULL AS slept', []);
    expect(turns).toEqual([]);
  });
});
