import { performance } from 'node:perf_hooks';
import { PgReaders } from '../../../src/adapters/postgres/pg-readers';
import { countImmediateTurns, POLL_WINDOW_MS } from '../../support/event-loop-turns';
import { eventually } from '../../support/process';
import { eachFreshDb, freshPostgresStore } from '../../support/stores';

/** PostgreSQL's list readers (issue #29): one prepared statement per page, polled for on a server while alone. */
describe('PostgreSQL list readers', () => {
  const fixture = eachFreshDb(freshPostgresStore);
  const pool = (): ConstructorParameters<typeof PgReaders>[0] => fixture.db.client as ConstructorParameters<typeof PgReaders>[0];
  /** Readers of this test: a server's keep a connection of their own, outside the pool the store closes. */
  const made: PgReaders[] = [];
  const readersOf = (server = false): PgReaders => {
    const readers = new PgReaders(pool(), server);
    made.push(readers);
    return readers;
  };
  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(made.splice(0).map((r) => r.close()));
  });

  it('answers a page as one text of its lines, and an empty page as the empty text', async () => {
    const readers = readersOf();
    const lines = "SELECT line FROM (VALUES (1, 'a\tb'), (2, 'c\td')) AS v(n, line) WHERE n >= $1 ORDER BY n";
    expect(await readers.selectText(lines, [1])).toBe('a\tb\nc\td');
    expect(await readers.selectText(lines, [3])).toBe('');
    await expect(readers.select('SELECT nothing FROM nowhere', [])).rejects.toThrow(/nowhere/);
  });

  it('keeps the event loop turning while a read runs alone, never past its answer or its polling time, and not beside another read', async () => {
    // POLL_WINDOW_MS, not the server's 1 ms: see its comment.
    const readers = new PgReaders(pool(), true, POLL_WINDOW_MS);
    made.push(readers);
    await Promise.all([readers.select('SELECT 1 AS x', []), readers.select('SELECT 1 AS x', [])]);
    const turns = countImmediateTurns();
    const slow = 'SELECT pg_sleep(0.05) IS NULL AS slept';
    const started = performance.now();
    expect(await readers.select(slow, [])).toEqual([{ slept: false }]);
    const answered = performance.now();
    expect(answered - started).toBeGreaterThan(3 * POLL_WINDOW_MS);
    expect(turns.length).toBeGreaterThan(1);
    // Stopped at its deadline, not at the answer: at least a window before it.
    expect(answered - Math.max(...turns)).toBeGreaterThan(POLL_WINDOW_MS);

    // Two reads side by side: the first is polled only until the second starts (one turn), the second not at all.
    turns.length = 0;
    expect(await Promise.all([readers.select(slow, []), readers.select(slow, [])])).toEqual([[{ slept: false }], [{ slept: false }]]);
    expect(turns.length).toBeLessThanOrEqual(2);
  });

  it("reads alone on a connection of the server's readers' own, side by side on the pool's, and makes it again when it breaks", async () => {
    const readers = readersOf(true);
    const pid = async (): Promise<number> => Number((await readers.select('SELECT pg_backend_pid() AS pid', []))[0]!.pid);
    const own = await pid();
    expect(await pid()).toBe(own);
    // Side by side: the first read has the own connection, the second one of the pool's.
    const [a, b] = await Promise.all([readers.select('SELECT pg_backend_pid() AS pid, pg_sleep(0.02)', []), readers.select('SELECT pg_backend_pid() AS pid, pg_sleep(0.02)', [])]);
    expect(a[0]!.pid).toBe(own);
    expect(b[0]!.pid).not.toBe(own);

    // Its server process ended (an administrator, a failover): the next reads are answered, then on a new connection.
    await fixture.db.raw('SELECT pg_terminate_backend(?)', [own]);
    expect(await pid()).not.toBe(own);
    const again = await eventually(async () => {
      const [first, second] = [await pid(), await pid()];
      return first === second ? first : undefined;
    });
    expect(again).not.toBe(own);
    await expect(readers.select('SELECT nothing FROM nowhere', [])).rejects.toThrow(/nowhere/);
    expect(await pid()).toBe(again);
    const backends = async (): Promise<number[]> => ((await fixture.db.raw('SELECT pid FROM pg_stat_activity WHERE pid = ANY(?)', [[own, again]])) as { rows: { pid: number }[] }).rows.map((r) => r.pid);
    expect(await backends()).toEqual([again]);

    // Closed with the database: its connection ends.
    await readers.close();
    await eventually(async () => ((await backends()).length ? undefined : true));
  });

  it('reads on the pool while its own connection cannot take its settings, and makes one again for the next read', async () => {
    type Conn = { query: (q: unknown) => Promise<unknown>; processID?: number };
    const base = pool() as unknown as { acquireRawConnection(): Promise<Conn> };
    let refuse = 1;
    const refused: number[] = [];
    const client = Object.create(base) as typeof base;
    client.acquireRawConnection = async () => {
      const conn = await base.acquireRawConnection.call(client);
      const query = conn.query.bind(conn);
      conn.query = async (q: unknown) => {
        if (typeof q === 'string' && q.startsWith('SET') && refuse > 0) {
          refuse--;
          refused.push(conn.processID!);
          throw new Error('permission denied to set parameter');
        }
        return query(q);
      };
      return conn;
    };
    const readers = new PgReaders(client as unknown as ConstructorParameters<typeof PgReaders>[0], true);
    made.push(readers);
    const read = async (): Promise<{ pid: number; mode: string }> => {
      const [row] = await readers.select("SELECT pg_backend_pid() AS pid, current_setting('plan_cache_mode') AS mode", []);
      return { pid: Number(row!.pid), mode: String(row!.mode) };
    };
    const first = await read();
    expect(refused).toHaveLength(1);
    expect(first).toMatchObject({ mode: 'auto' });
    expect(first.pid).not.toBe(refused[0]);
    const own = await read();
    expect(own.mode).toBe('force_generic_plan');
    expect(await read()).toEqual(own);
    // The refused connection was closed.
    await eventually(async () => (((await fixture.db.raw('SELECT pid FROM pg_stat_activity WHERE pid = ?', [refused[0]])) as { rows: unknown[] }).rows.length ? undefined : true));
  });

  it("never polls for a command's reads", async () => {
    const readers = readersOf();
    await readers.select('SELECT 1 AS x', []);
    const turns = countImmediateTurns();
    await readers.select('SELECT pg_sleep(0.01) IS NULL AS slept', []);
    expect(turns).toEqual([]);
  });
});
