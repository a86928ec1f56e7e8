/**
 * `chainflow storage copy` with the built CLI (issue #29, part 6): a SQLite journal built by the import and the
 * engine (runs, sends, ledger entries with wei beyond 2^64, budget reservations, an engine run parked in its delay)
 * copied into an empty database of the run's PostgreSQL; verified by the command (counts, wei sums), then by the
 * API on both stores answering the same text. The SQLite file is left as it was.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import knexFactory from 'knex';
import { openDatabase } from '../../src/adapters/storage';
import { KnexBudgetReservations } from '../../src/adapters/knex/knex-budget-reservations';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { manyRuns, T0, toNdjson } from '../mothers/journal-events';
import { assertBuilt, chainflow } from '../support/cli';
import { clusterUrl, freshPostgres, type FreshPostgres } from '../support/postgres';
import { makeTempDir, removeTempDir, startTestServer, writeConfig, type TestServer } from '../support/server';
import { sendRun, type SendSpec } from '../support/spend-ledger';

const TWO_64 = 2n ** 64n;
const BIG_SEND: SendSpec = {
  runId: 'copy-big', workflow: 'payouts', relayer: 'ops', network: 'sepolia', chainId: 11155111, at: T0, outcome: 'confirmed',
  valueWei: (TWO_64 * 3n + 7n).toString(),
  // gas × price beyond 2^64 as well.
  receipt: { gasUsed: '21000', effectiveGasPrice: (TWO_64 + 1n).toString() },
};
const SMALL_SEND: SendSpec = { ...BIG_SEND, runId: 'copy-small', at: T0 + 60_000, valueWei: '1000000000000000000', receipt: { gasUsed: '21000', effectiveGasPrice: '30000000000' } };
const RESERVED = TWO_64 * 5n + 11n;

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('chainflow storage copy (SQLite to PostgreSQL)', () => {
  let dir: string;
  let journal: string;
  let target: FreshPostgres;
  let copied: ReturnType<typeof chainflow>;
  let before: string;

  beforeAll(async () => {
    assertBuilt();
    dir = makeTempDir('chainflow-copy-');
    journal = path.join(dir, 'journal.db');
    writeConfig(dir, {
      storage: { url: `sqlite:${journal}` },
      workflows: { keeper: { trigger: { kind: 'manual' }, steps: [{ id: 'cool', type: 'delay', duration: '1h' }] } },
    });
    // 120 + 2 imported runs, and the engine's one: 123.
    const events: JournalEvent[] = [...manyRuns(120, { prefix: 'bulk' }), ...sendRun(BIG_SEND), ...sendRun(SMALL_SEND)];
    fs.writeFileSync(path.join(dir, 'events.ndjson'), toNdjson(events));
    const imported = chainflow(['journal', 'import', 'events.ndjson'], { cwd: dir });
    expect({ status: imported.status, stderr: imported.stderr }).toEqual({ status: 0, stderr: '' });
    // The engine: a run it drives to its delay, parked in the schedule (engine_runs, its pinned definition).
    const ran = chainflow(['run', 'keeper', '--json'], { cwd: dir });
    expect({ status: ran.status, stderr: ran.stderr }).toEqual({ status: 0, stderr: '' });
    // A send's budget reservation in flight, as the send path makes it.
    const db = await openDatabase(`sqlite:${journal}`);
    await new KnexBudgetReservations(db).reserve('send-in-flight', Date.now(), [{ budget: 'daily_value', amount: RESERVED, since: 0 }], () => true);
    await db.destroy();
    before = sha256(journal);
    target = await freshPostgres();
    copied = chainflow(['storage', 'copy', '--from', `sqlite:${journal}`, '--to', target.url, '--batch-size', '50'], { cwd: dir });
  }, 120_000);

  afterAll(async () => {
    await target?.drop();
    if (dir) removeTempDir(dir);
  });

  it('copies every table, prints counts and wei sums per table, and says it verified them', () => {
    expect({ status: copied.status, stderr: copied.stderr }).toEqual({ status: 0, stderr: '' });
    const row = (table: string): string => copied.stdout.split('\n').find((l) => l.startsWith(`${table} `)) ?? '';
    expect(row('events')).toMatch(/^events\s+(\d+)\s+\1\s+-\s+ok$/);
    expect(row('runs')).toMatch(/^runs\s+123\s+123\s+-\s+ok$/);
    expect(row('engine_runs')).toMatch(/^engine_runs\s+1\s+1\s+-\s+ok$/);
    const gas = 21000n * (TWO_64 + 1n) + 21000n * 30000000000n;
    const value = BigInt(BIG_SEND.valueWei) + BigInt(SMALL_SEND.valueWei);
    expect(row('spend_entries')).toMatch(new RegExp(`^spend_entries\\s+2\\s+2\\s+gas_spend_wei ${gas} / ${gas}, value_wei ${value} / ${value}\\s+ok$`));
    expect(row('budget_reservations')).toMatch(new RegExp(`^budget_reservations\\s+1\\s+1\\s+amount ${RESERVED} / ${RESERVED}\\s+ok$`));
    expect(copied.stdout).toMatch(/^copied [\d,]+ rows of \d+ tables in [\d.]+ s \([\d,]+ rows\/s\)$/m);
    expect(copied.stdout).toMatch(/^verified: every table has as many rows on both ends, and every wei column the same sum$/m);
    expect(copied.stdout).not.toMatch(/MISMATCH/);
    // The runs waiting per workflow are counted by the target's own triggers as the runs arrive, not copied.
    expect(copied.stdout).not.toMatch(/workflow_waiting/);
  });

  it('copies wei into the target\'s NUMERIC(78,0) columns (CONTRACT 10), which PostgreSQL sums to the same wei', async () => {
    const db = await openDatabase(target.url);
    try {
      const types = (await db.raw(
        `SELECT column_name, data_type, numeric_precision, numeric_scale FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = 'spend_entries' AND column_name IN ('gas_spend_wei', 'value_wei') ORDER BY column_name`,
      )).rows as Array<Record<string, unknown>>;
      expect(types).toEqual(['gas_spend_wei', 'value_wei'].map((c) => ({ column_name: c, data_type: 'numeric', numeric_precision: 78, numeric_scale: 0 })));
      const [sums] = (await db.raw('SELECT SUM(gas_spend_wei)::text AS gas, SUM(value_wei)::text AS value FROM spend_entries')).rows as Array<{ gas: string; value: string }>;
      const gas = 21000n * (TWO_64 + 1n) + 21000n * 30000000000n;
      expect(sums).toEqual({ gas: gas.toString(), value: (BigInt(BIG_SEND.valueWei) + BigInt(SMALL_SEND.valueWei)).toString() });
    } finally {
      await db.destroy();
    }
  });

  it('leaves the SQLite journal as it was (opened read-only)', () => {
    expect(sha256(journal)).toBe(before);
  });

  it('the copy serves the same API text as the SQLite journal: runs, one run\'s timeline, spend, the engine\'s parked run, the workflows overview', async () => {
    const servers: TestServer[] = [];
    try {
      for (const url of [`sqlite:${journal}`, target.url]) {
        servers.push(await startTestServer({ config: { storage: { url } } }));
      }
      for (const p of ['/api/history/runs?limit=500', '/api/history/runs/copy-big/timeline', '/api/spend', '/api/history/waiting', '/api/history/txs?limit=500', '/api/history/workflows']) {
        const [onSqlite, onPostgres] = await Promise.all(servers.map((s) => s.get(p)));
        expect({ p, status: onPostgres!.status }).toEqual({ p, status: 200 });
        expect({ p, body: onPostgres!.body }).toEqual({ p, body: onSqlite!.body });
      }
      const overview = (await servers[1]!.get('/api/history/workflows')).body as { items: Array<{ workflow: string; runs_waiting: number }> };
      expect(overview.items.find((w) => w.workflow === 'keeper')?.runs_waiting).toBe(1);
      const spend = (await servers[1]!.get('/api/spend')).body as { summary: { total: { value_wei: string } } };
      expect(BigInt(spend.summary.total.value_wei)).toBe(BigInt(BIG_SEND.valueWei) + BigInt(SMALL_SEND.valueWei));
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  it('refuses a target that holds data (exit 2, naming --to and the tables), and changes nothing there', async () => {
    const again = chainflow(['storage', 'copy', '--from', `sqlite:${journal}`, '--to', target.url], { cwd: dir });
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/^Error: --to: the target database is not empty \(rows in events, .*\): copy into an empty database\n$/);
    const db = await openDatabase(target.url);
    try {
      expect(Number(((await db('runs').count({ n: '*' })) as Array<{ n: string }>)[0]!.n)).toBe(123);
    } finally {
      await db.destroy();
    }
  });

  it('refuses bad flags before touching anything: a password in --to, an unset --to-password-env, a missing or non-sqlite --from', () => {
    const url = new URL(target.url);
    url.password = 'in-the-url';
    const cases: Array<[string[], RegExp]> = [
      [['--from', `sqlite:${journal}`, '--to', url.toString()], /^Error: --to: must not hold a password: give it through --to-password-env NAME or PGPASSWORD\n$/],
      [['--from', `sqlite:${journal}`, '--to', target.url, '--to-password-env', 'CHAINFLOW_NO_SUCH_VARIABLE'], /^Error: --to-password-env: environment variable CHAINFLOW_NO_SUCH_VARIABLE is not set\n$/],
      [['--from', `sqlite:${path.join(dir, 'missing.db')}`, '--to', target.url], /^Error: --from: .*missing\.db: no such file\n$/],
      [['--from', journal, '--to', target.url], /^Error: --from: must be sqlite:PATH \(the journal to copy\)\n$/],
      [['--from', `sqlite:${journal}`, '--to', `sqlite:${journal}`], /^Error: --to: must be postgres:\/\/user@host:port\/db \(the copy goes into PostgreSQL\)\n$/],
    ];
    for (const [flags, message] of cases) {
      const res = chainflow(['storage', 'copy', ...flags], { cwd: dir });
      expect({ flags, status: res.status, stderr: res.stderr }).toEqual({ flags, status: 2, stderr: expect.stringMatching(message) });
      expect(res.stderr).not.toContain('in-the-url');
    }
  });
});

describe('chainflow storage copy into a fresh blank database', () => {
  it('migrates a blank PostgreSQL database first and copies an empty journal (0 rows, verified)', async () => {
    assertBuilt();
    const dir = makeTempDir('chainflow-copy-empty-');
    const blank = `chainflow_copy_blank_${process.pid}`;
    const admin = knexFactory({ client: 'pg', connection: await clusterUrl(), pool: { min: 0, max: 1 } });
    await admin.raw(`CREATE DATABASE ${blank}`);
    const url = new URL(await clusterUrl());
    url.pathname = `/${blank}`;
    try {
      const db = await openDatabase(`sqlite:${path.join(dir, 'empty.db')}`);
      await db.destroy();
      const res = chainflow(['storage', 'copy', '--from', `sqlite:${path.join(dir, 'empty.db')}`, '--to', url.toString()], { cwd: dir });
      expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
      expect(res.stdout).toMatch(/^verified: /m);
      expect(res.stdout).toMatch(/^meta\s+1\s+1\s+-\s+ok$/m);
    } finally {
      await admin.raw(`DROP DATABASE IF EXISTS ${blank} WITH (FORCE)`);
      await admin.destroy();
      removeTempDir(dir);
    }
  });
});
