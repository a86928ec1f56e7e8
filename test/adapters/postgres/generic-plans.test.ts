import type { Knex } from 'knex';
import { HISTORY_LISTS, KnexHistoryRepository } from '../../../src/adapters/knex/knex-history.repository';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { migrationSource } from '../../../src/adapters/knex/migrations';
import { QueryShape } from '../../../src/adapters/knex/list-reads';
import { OWN_CONNECTION_SETTINGS, PgReaders } from '../../../src/adapters/postgres/pg-readers';
import type { RunFilter } from '../../../src/application/ports/run-repository';
import { eachFreshDb, freshPostgresStore } from '../../support/stores';

type Row = Record<string, unknown>;

/** Rows of each listed table, with few distinct values in every filtered column (as a journal has them). */
const ROWS = 20_000;

/** Fills the listed tables with ROWS rows each: value `v<i mod n>` in each filtered column, times spread over ROWS seconds. */
async function fill(db: Knex): Promise<void> {
  const v = (n: number): string => `'v' || (i % ${n})`;
  await db.raw(`INSERT INTO runs (run_id, workflow, status, trigger_kind, session, relayers, tx_hashes, step_ids, created_at, network, contract, block,
      error_kind, approval_status, session_id, parked_at)
    SELECT 'r' || i, ${v(5)}, CASE WHEN i % 3 = 0 THEN 'waiting' ELSE 'succeeded' END, ${v(3)}, 'live', '[]', '[]', '[]', i * 1000, ${v(4)}, ${v(6)}, i % 50,
      ${v(7)}, ${v(2)}, ${v(9)}, i * 1000 FROM generate_series(1, ${ROWS}) AS i`);
  for (const [table, column] of [['run_relayers', 'relayer'], ['run_step_ids', 'step_id'], ['run_tx_hashes', 'tx_hash']] as const) {
    await db.raw(`INSERT INTO ${table} (${column}, created_at, run_id) SELECT ${v(5)}, i * 1000, 'r' || i FROM generate_series(1, ${ROWS}) AS i`);
  }
  await db.raw(`INSERT INTO sends (send_id, run_id, step_run_id, workflow, session, network, chain_id, relayer, status, outcome, tx_hash, idempotency_key,
      to_address, value_wei, created_at, updated_at)
    SELECT 's' || i, 'r' || i, 'sr' || i, ${v(5)}, ${v(2)}, ${v(4)}, 1, ${v(3)}, ${v(4)}, ${v(3)}, '0x' || i, 'k' || i, '0xto', 1, i * 1000, i * 1000
    FROM generate_series(1, ${ROWS}) AS i`);
  await db.raw(`INSERT INTO approvals (approval_id, run_id, step_run_id, workflow, status, requested_at)
    SELECT 'a' || i, 'r' || i, 'sr' || i, ${v(5)}, ${v(3)}, i * 1000 FROM generate_series(1, ${ROWS}) AS i`);
  await db.raw(`INSERT INTO reorgs (reorg_id, run_id, workflow, network, block, created_at, steps)
    SELECT 'g' || i, 'r' || i, ${v(5)}, ${v(4)}, i, i * 1000, '[]' FROM generate_series(1, ${ROWS}) AS i`);
  await db.raw(`INSERT INTO sessions (session_id, kind, workflow, created_at, run_count)
    SELECT 'x' || i, ${v(2)}, ${v(5)}, i * 1000, 0 FROM generate_series(1, ${ROWS}) AS i`);
  await db.raw('ANALYZE');
}

/**
 * A page's statement run once as PgReaders' own connection runs it (`settings`: a generic plan, planned without its
 * values) for `values`: the buffers it read and whether it sorted.
 */
async function generic(db: Knex, query: Knex.QueryBuilder, values?: readonly unknown[], settings = OWN_CONNECTION_SETTINGS): Promise<{ buffers: number; sorted: boolean; plan: string }> {
  const { sql, bindings } = query.toSQL().toNative();
  return db.transaction(async (trx) => {
    for (const [name, value] of Object.entries(settings)) await trx.raw(`SET LOCAL ${name} = ${value}`);
    await trx.raw(`PREPARE page_plan AS ${sql}`);
    try {
      const args = (values ?? bindings).map((b) => (typeof b === 'number' ? String(b) : `'${String(b).replace(/'/g, "''")}'`)).join(', ');
      const result = (await trx.raw(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE page_plan${args ? `(${args})` : ''}`)) as { rows: Row[] };
      const [top] = result.rows[0]!['QUERY PLAN'] as [{ Plan: Row }];
      const nodes: Row[] = [];
      const walk = (node: Row): void => {
        nodes.push(node);
        for (const child of (node.Plans as Row[] | undefined) ?? []) walk(child);
      };
      walk(top.Plan);
      return {
        buffers: Number(top.Plan['Shared Hit Blocks']) + Number(top.Plan['Shared Read Blocks']),
        // An incremental sort of a unique key's rows sorts at most one row (the runs of one run id).
        sorted: nodes.some((n, i) => String(n['Node Type']).includes('Sort') && !(n['Node Type'] === 'Incremental Sort' && String(nodes[i + 1]?.['Index Name']).endsWith('_pkey'))),
        plan: nodes.map((n) => `${String(n['Node Type'])} ${String(n['Index Name'] ?? n['Relation Name'] ?? '')}`).join(' > '),
      };
    } finally {
      await trx.raw('DEALLOCATE page_plan');
    }
  });
}

/**
 * Pages planned once (issue #29): PostgreSQL's list readers run a page's statement as one generic plan for every value
 * (planning it at each run cost as much as running it), so the statement must leave that plan no index to choose
 * wrongly: a page of one filter's value no row has reads a handful of pages, not the table.
 */
describe('list pages planned once on PostgreSQL', () => {
  const fixture = eachFreshDb(freshPostgresStore);

  const RUN_FILTERS: ReadonlyArray<readonly [string, RunFilter]> = [
    ['none', {}], ['workflow', { workflow: 'v1' }], ['status', { status: 'waiting' }], ['trigger', { trigger: 'v1' }],
    ['network', { network: 'v1' }], ['contract', { contract: 'v1' }], ['block', { block: 7 }], ['runId', { runId: 'r7' }],
    ['errorKind', { errorKind: 'v1' }], ['approvalStatus', { approvalStatus: 'approved' }], ['session', { session: 'live' }],
    ['sessionId', { sessionId: 'v1' }], ['relayer', { relayer: 'v1' }], ['txHash', { txHash: 'v1' }], ['stepId', { stepId: 'v1' }],
  ];
  const LISTS = [
    { name: 'sends', table: HISTORY_LISTS.SENDS, filters: ['workflow', 'network', 'relayer', 'status', 'outcome', 'session', 'run_id', 'tx_hash'] },
    { name: 'approvals', table: HISTORY_LISTS.APPROVALS, filters: ['workflow', 'status'] },
    { name: 'waiting', table: HISTORY_LISTS.WAITING, filters: ['workflow', 'wait_kind'] },
    { name: 'reorgs', table: HISTORY_LISTS.REORGS, filters: ['workflow', 'network'] },
    { name: 'replays', table: HISTORY_LISTS.SESSIONS, filters: ['workflow', 'kind'] },
  ];
  /** The value no row has, bound where a page's filter is (twice: as its range's two ends). */
  const NONE = 'no-such-value';

  it('reads a handful of pages for a value no row has and as many deep as first, on every list and filter, and never sorts', async () => {
    const db = fixture.db;
    await fill(db);
    const runs = new KnexRunRepository(db);
    const history = new KnexHistoryRepository(db);
    const after = { createdAt: (ROWS / 2) * 1000, id: 'm' };
    const cases: Array<{ name: string; query: (deep: boolean) => Knex.QueryBuilder; absent: (deep: boolean) => unknown[] | undefined }> = [];
    for (const [name, filter] of RUN_FILTERS) {
      // A side table's filter alone is looked up per row (KnexRunRepository.listItems): no join to `r`.
      const lookup = ['relayer', 'txHash', 'stepId'].includes(name);
      const query = (deep: boolean): Knex.QueryBuilder =>
        runs.listQuery(filter, { limit: 51, after: deep ? after : undefined }, [db.raw(lookup ? 'x.run_id AS line' : 'r.line AS line')], lookup);
      const value = Object.values(filter)[0];
      const absent = (deep: boolean): unknown[] | undefined => {
        if (value === undefined) return undefined;
        const bindings = query(deep).toSQL().toNative().bindings as unknown[];
        return bindings.map((b) => (b === value ? (typeof value === 'number' ? -1 : NONE) : b));
      };
      cases.push({ name: `runs ${name}`, query, absent });
    }
    for (const { name: list, table, filters } of LISTS) {
      for (const field of [undefined, ...filters]) {
        const equals: Record<string, string> = field ? { [field]: 'v1' } : {};
        const query = (deep: boolean): Knex.QueryBuilder => history.pageQuery(table, { equals }, { limit: 51, after: deep ? after : undefined });
        const absent = (deep: boolean): unknown[] | undefined =>
          field ? (query(deep).toSQL().toNative().bindings as unknown[]).map((b) => (b === 'v1' ? NONE : b)) : undefined;
        cases.push({ name: `${list} ${field ?? 'unfiltered'}`, query, absent });
      }
    }
    const failures: string[] = [];
    for (const c of cases) {
      const read: number[] = [];
      for (const deep of [false, true]) {
        const shown = await generic(db, c.query(deep));
        read.push(shown.buffers);
        if (shown.sorted) failures.push(`${c.name}${deep ? ' deep' : ''} sorts: ${shown.plan}`);
        // A cursor positions the scan: a page halfway down reads about what the first page reads, not what lies above it.
        if (deep && shown.buffers > read[0]! + 8) failures.push(`${c.name} deep read ${shown.buffers} buffers, the first page ${read[0]}: ${shown.plan}`);
        const values = c.absent(deep);
        if (!values) continue;
        const none = await generic(db, c.query(deep), values);
        if (none.buffers > 12) failures.push(`${c.name}${deep ? ' deep' : ''} read ${none.buffers} buffers for a value no row has: ${none.plan}`);
      }
    }
    expect(failures).toEqual([]);
    expect(cases.length).toBe(RUN_FILTERS.length + LISTS.reduce((n, l) => n + l.filters.length + 1, 0));
  }, 120_000);

  it('reads the whole time index for such a value with an equality (what the test above checks against)', async () => {
    const db = fixture.db;
    await fill(db);
    const query = db('runs').select('run_id').where('workflow', 'v1').orderBy([{ column: 'created_at', order: 'desc' }, { column: 'run_id', order: 'desc' }]).limit(51);
    const none = await generic(db, query, [NONE, 51]);
    expect(none.buffers).toBeGreaterThan(100);
  }, 60_000);

  it('reads a deep waiting page from its cursor since migration 0028, and from the newest waiting run before it', async () => {
    const db = fixture.db;
    await fill(db);
    const history = new KnexHistoryRepository(db);
    const page = (deep: boolean): Knex.QueryBuilder =>
      history.pageQuery(HISTORY_LISTS.WAITING, { equals: {} }, { limit: 51, after: deep ? { createdAt: (ROWS / 2) * 1000, id: 'm' } : undefined });
    const read = async (): Promise<number[]> => [(await generic(db, page(false))).buffers, (await generic(db, page(true))).buffers];
    const [first, deep] = await read();
    expect(deep).toBeLessThanOrEqual(first! + 8);
    await db.migrate.down({ migrationSource, name: '0028_waiting_cursor' });
    const [, before] = await read();
    expect(before).toBeGreaterThan(first! * 2);
    await db.migrate.latest({ migrationSource });
    expect((await read())[1]).toBe(deep);
  }, 60_000);

  it("runs written-once pages on the server readers' own connection, planned generically, and other pages on the pool's", async () => {
    const readers = new PgReaders(fixture.db.client as ConstructorParameters<typeof PgReaders>[0], true);
    try {
      const pid = 'SELECT pg_backend_pid() AS pid, current_setting($1) AS mode';
      const once = new QueryShape('once').add('mode', 'plan_cache_mode').page(undefined, undefined, { limit: 1 }, true);
      const planned = new QueryShape('planned').add('mode', 'plan_cache_mode').page(undefined, undefined, { limit: 1 });
      // Two texts (a page planned once has the range form, one of several filters not: they never share a text).
      const query = (where: string) => (): Knex.QueryBuilder =>
        fixture.db.select(fixture.db.raw('pg_backend_pid() AS pid, current_setting(?) AS mode', ['plan_cache_mode'])).whereRaw(where).limit(1);
      const onceText = readers.sql(once, query('1 = 1'))!;
      const plannedText = readers.sql(planned, query('2 = 2'))!;
      expect(onceText).not.toBe(plannedText);
      expect(once.planOnce).toBe(true);
      expect(planned.planOnce).toBe(false);
      const [own] = await readers.select(onceText, once.bindings);
      const [pool] = await readers.select(plannedText, planned.bindings);
      const [other] = await readers.select(pid, ['plan_cache_mode']);
      expect(own).toEqual({ pid: other!.pid, mode: 'force_generic_plan' });
      expect(pool!.pid).not.toBe(own!.pid);
      expect(pool!.mode).toBe('auto');
    } finally {
      await readers.close();
    }
  });
});
