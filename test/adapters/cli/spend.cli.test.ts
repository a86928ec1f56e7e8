/**
 * `chainflow spend` and `chainflow spend export` through the real compiled program (bin/run.js) on a real
 * SQLite file, fed by `chainflow journal import` (SPEC: CLI, Spend ledger entry; CONTRACT sections 3 and 6).
 * Run `npm run build` first. Each spawn costs about half a second: assertions are grouped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DAY, HOUR, toNdjson } from '../../mothers/journal-events';
import { assertBuilt, chainflow, hasStackTrace, lines, type CliResult } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';
import {
  ENTRY_FIELDS, expectedEntry, expectedSummary, newestFirst, sendRun, sortedSummary, SPEND_CSV_HEADER, txHashOf,
  type EntryJson, type SendSpec, type SpendJson,
} from '../../support/spend-ledger';

const NOW = Math.floor(Date.now() / 1000) * 1000;
const GWEI = 1_000_000_000n;
const ETHER = 10n ** 18n;

const OLD: SendSpec = {
  runId: 'c-pay-old', workflow: 'payouts', relayer: 'ops', network: 'sepolia', chainId: 11155111, at: NOW - 10 * DAY,
  outcome: 'confirmed', valueWei: String(ETHER / 2n), receipt: { gasUsed: '21000', effectiveGasPrice: String(2n * GWEI) },
};
const REVERTED: SendSpec = {
  runId: 'c-pay-rev', workflow: 'payouts', relayer: 'ops', network: 'sepolia', chainId: 11155111, at: NOW - 2 * HOUR,
  outcome: 'reverted', valueWei: String(ETHER), receipt: { gasUsed: '50000', effectiveGasPrice: String(GWEI) },
};
const KEEPER: SendSpec = {
  runId: 'c-keep', workflow: 'keeper', relayer: 'bot', network: 'base', chainId: 8453, at: NOW - 3 * HOUR,
  outcome: 'confirmed', valueWei: String(ETHER / 4n), receipt: { gasUsed: '100000', effectiveGasPrice: String(3n * GWEI), l1Fee: '1000000000000' },
};
const LEGACY: SendSpec = {
  runId: 'c-legacy', workflow: 'treasury-sweep', relayer: 'treasury', network: 'mainnet', chainId: 1, at: NOW - 30 * HOUR,
  outcome: 'confirmed', valueWei: String(2n * ETHER), receipt: { gasUsed: '21000', gasPrice: String(10n * GWEI) },
};
const DROPPED: SendSpec = {
  runId: 'c-drop', workflow: 'payouts', relayer: 'ops', network: 'sepolia', chainId: 11155111, at: NOW - HOUR,
  outcome: 'dropped', valueWei: '1', receipt: { gasUsed: '21000', effectiveGasPrice: String(GWEI) },
};
const LANDED = [OLD, REVERTED, KEEPER, LEGACY];
const ENTRIES = newestFirst(LANDED.map(expectedEntry));
const OLDEST_FIRST = [...ENTRIES].reverse();

interface Table {
  readonly header: string[];
  readonly rows: string[][];
}

/** The human output of `chainflow spend`: blank-line separated tables, cells split on runs of 2+ spaces. */
function tables(res: CliResult): Record<string, Table> {
  expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
  const out: Record<string, Table> = {};
  for (const block of res.stdout.trim().split(/\n\s*\n/)) {
    const [header, ...rows] = lines(block).map((l) => l.trim().split(/\s{2,}/));
    out[header![0]!] = { header: header!, rows: rows };
  }
  expect(Object.keys(out)).toEqual(['WORKFLOW', 'RELAYER', 'NETWORK', 'TOTAL']);
  for (const t of Object.values(out)) expect(t.header.slice(1)).toEqual(['SENDS', 'GAS SPEND', 'VALUE MOVED', 'REVERTED', 'REVERTED LOSS']);
  return out;
}

const rowsByKey = (t: Table): Record<string, string[]> => Object.fromEntries(t.rows.map((r) => [r[0], r.slice(1)]));

function spendJson(res: CliResult): SpendJson {
  expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
  const body = JSON.parse(res.stdout) as SpendJson;
  expect(body).toEqual(expect.objectContaining({ summary: expect.any(Object), entries: expect.any(Array) }));
  return body;
}

function expectUsageError(res: CliResult, flag: RegExp): void {
  expect({ status: res.status, stdout: res.stdout, stderrLines: lines(res.stderr).length }).toEqual({ status: 2, stdout: '', stderrLines: 1 });
  expect(res.stderr).toMatch(flag);
  expect(hasStackTrace(res.stderr)).toBe(false);
}

function csvRow(e: EntryJson): string {
  return [
    e.recorded_at, e.workflow, e.relayer, e.network, e.chain_id, e.tx_hash, e.gas_used, e.effective_gas_price,
    e.gas_spend_wei, e.value_wei, e.reverted, e.run_id, e.step_run_id,
  ].join(',');
}

/** Writes the runs of these sends as an NDJSON file in `dir` and imports it; returns the import's result. */
function importSends(dir: string, sends: readonly SendSpec[], env?: Record<string, string>): CliResult {
  const file = path.join(dir, `import-${sends.map((s) => s.runId).join('-')}.ndjson`);
  fs.writeFileSync(file, toNdjson(sends.flatMap(sendRun)));
  return chainflow(['journal', 'import', file], { cwd: dir, env });
}

beforeAll(() => assertBuilt());

describe('chainflow spend on an imported ledger', () => {
  let dir: string;
  const run = (...args: string[]): CliResult => chainflow(args, { cwd: dir });

  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-spend-');
    const res = importSends(dir, [...LANDED, DROPPED]);
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
    expect(res.stdout).toMatch(/^imported \d+ events/m);
    // every landed settle carried gas numbers: no receipt read was needed
    expect(res.stdout).not.toMatch(/spend ledger:/);
  });
  afterAll(() => removeTempDir(dir));

  it('prints one table per dimension plus the totals, amounts in the native unit', () => {
    const t = tables(run('spend'));
    expect(rowsByKey(t.WORKFLOW!)).toEqual({
      payouts: ['2', '0.000092 ETH', '0.5 ETH', '1', '0.00005 ETH'],
      keeper: ['1', '0.000301 ETH', '0.25 ETH', '0', '0 ETH'],
      'treasury-sweep': ['1', '0.00021 ETH', '2 ETH', '0', '0 ETH'],
    });
    expect(rowsByKey(t.RELAYER!)).toEqual({
      ops: ['2', '0.000092 ETH', '0.5 ETH', '1', '0.00005 ETH'],
      bot: ['1', '0.000301 ETH', '0.25 ETH', '0', '0 ETH'],
      treasury: ['1', '0.00021 ETH', '2 ETH', '0', '0 ETH'],
    });
    expect(rowsByKey(t.NETWORK!)).toEqual({
      sepolia: ['2', '0.000092 ETH', '0.5 ETH', '1', '0.00005 ETH'],
      base: ['1', '0.000301 ETH', '0.25 ETH', '0', '0 ETH'],
      mainnet: ['1', '0.00021 ETH', '2 ETH', '0', '0 ETH'],
    });
    expect(t.TOTAL!.rows).toEqual([['total', '4', '0.000603 ETH', '2.75 ETH', '1', '0.00005 ETH']]);
  });

  it('--workflow, --relayer, --network and --since filter every table', () => {
    const keeper = tables(run('spend', '--workflow', 'keeper'));
    expect(keeper.WORKFLOW!.rows.map((r) => r[0])).toEqual(['keeper']);
    expect(keeper.RELAYER!.rows.map((r) => r[0])).toEqual(['bot']);
    expect(keeper.TOTAL!.rows).toEqual([['total', '1', '0.000301 ETH', '0.25 ETH', '0', '0 ETH']]);

    const ops = tables(run('spend', '--relayer', 'ops'));
    expect(ops.NETWORK!.rows.map((r) => r[0])).toEqual(['sepolia']);
    expect(ops.TOTAL!.rows).toEqual([['total', '2', '0.000092 ETH', '0.5 ETH', '1', '0.00005 ETH']]);

    const mainnet = tables(run('spend', '--network', 'mainnet'));
    expect(mainnet.WORKFLOW!.rows.map((r) => r[0])).toEqual(['treasury-sweep']);
    expect(mainnet.TOTAL!.rows).toEqual([['total', '1', '0.00021 ETH', '2 ETH', '0', '0 ETH']]);

    // the last day: the reverted payout (2 h ago) and the keeper send (3 h ago)
    const recent = tables(run('spend', '--since', '1d'));
    expect(recent.WORKFLOW!.rows.map((r) => r[0]).sort()).toEqual(['keeper', 'payouts']);
    expect(recent.TOTAL!.rows).toEqual([['total', '2', '0.000351 ETH', '0.25 ETH', '1', '0.00005 ETH']]);

    const nobody = run('spend', '--relayer', 'nobody');
    expect({ status: nobody.status, stdout: nobody.stdout.trim() }).toEqual({ status: 0, stdout: 'no spend recorded' });
  });

  it('--json gives the API shape with exact wei, entries newest first', () => {
    const body = spendJson(run('spend', '--json'));
    expect(sortedSummary(body.summary)).toEqual(expectedSummary(ENTRIES));
    expect(body.summary.total).toEqual({
      tx_count: 4, gas_spend_wei: '603000000000000', value_wei: '2750000000000000000', reverted_count: 1, reverted_gas_wei: '50000000000000',
    });
    expect(body.entries).toEqual(ENTRIES);
    for (const e of body.entries) expect(Object.keys(e).sort()).toEqual(ENTRY_FIELDS);
    expect(body.entries.map((e) => e.tx_hash)).not.toContain(txHashOf(DROPPED));

    const filtered = spendJson(run('spend', '--json', '--relayer', 'ops', '--since', '7d', '--limit', '0'));
    expect(filtered.entries).toEqual([]);
    expect(sortedSummary(filtered.summary)).toEqual(expectedSummary([expectedEntry(REVERTED)]));
  });

  it('bad flags exit 2 with one line naming the flag, no stack trace', () => {
    expectUsageError(run('spend', '--since', '3 days'), /since/);
    expectUsageError(run('spend', '--limit', '900'), /limit/);
    expectUsageError(run('spend', '--json', '--until', 'tomorrow'), /until/);
    expectUsageError(run('spend', '--wrkflow', 'payouts'), /wrkflow/);
    expectUsageError(run('spend', 'export', '--format', 'xml'), /format/);
    expectUsageError(run('spend', 'export', '--since', '3x'), /since/);
  });

  it('spend export --format csv: the pinned header, then one row per entry in column order, oldest first', () => {
    const res = run('spend', 'export', '--format', 'csv');
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
    const out = lines(res.stdout);
    expect(out[0]).toBe(SPEND_CSV_HEADER);
    expect(out.slice(1)).toEqual(OLDEST_FIRST.map(csvRow));
    // the reverted payout, spelled out: gas 50000 × 1 gwei, no value moved
    expect(out).toContain([
      expectedEntry(REVERTED).recorded_at, 'payouts', 'ops', 'sepolia', '11155111', txHashOf(REVERTED), '50000', '1000000000', '50000000000000', '0', 'true',
      'c-pay-rev', 'c-pay-rev.submit_tx',
    ].join(','));

    const recent = run('spend', 'export', '--format', 'csv', '--since', '1d');
    expect(lines(recent.stdout)).toEqual([SPEND_CSV_HEADER, ...OLDEST_FIRST.filter((e) => e.run_id === 'c-keep' || e.run_id === 'c-pay-rev').map(csvRow)]);
  });

  it('spend export --format json prints { "entries": [...] }; --since filters', () => {
    const res = run('spend', 'export', '--format', 'json');
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
    const body = JSON.parse(res.stdout) as { entries: EntryJson[] };
    expect(Object.keys(body)).toEqual(['entries']);
    expect(body.entries).toEqual(OLDEST_FIRST);

    const recent = JSON.parse(run('spend', 'export', '--format', 'json', '--since', '2d').stdout) as { entries: EntryJson[] };
    expect(recent.entries.map((e) => e.run_id)).toEqual(['c-legacy', 'c-keep', 'c-pay-rev']);
  });
});

describe('chainflow spend after chainflow demo', () => {
  let dir: string;
  const run = (...args: string[]): CliResult => chainflow(args, { cwd: dir });
  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-spend-demo-');
  });
  afterAll(() => removeTempDir(dir));

  it('shows non-zero totals, and the export holds exactly the summarized entries', () => {
    expect(run('demo').status).toBe(0);
    const t = tables(run('spend'));
    const [, sends, gas, value] = t.TOTAL!.rows[0]!;
    expect(Number(sends)).toBeGreaterThan(0);
    expect(gas).toMatch(/^0\.\d*[1-9]\d* ETH$/);
    expect(value).not.toBe('0 ETH');

    const summary = spendJson(run('spend', '--json', '--limit', '0')).summary;
    const exported = (JSON.parse(run('spend', 'export', '--format', 'json').stdout) as { entries: EntryJson[] }).entries;
    expect(exported.length).toBe(summary.total.tx_count);
    expect(exported.reduce((sum, e) => sum + BigInt(e.gas_spend_wei), 0n).toString()).toBe(summary.total.gas_spend_wei);
    expect(exported.reduce((sum, e) => sum + BigInt(e.value_wei), 0n).toString()).toBe(summary.total.value_wei);
  });
});

describe('chainflow journal import of a landed settle without gas numbers, on a network with no read provider', () => {
  const NO_GAS: SendSpec = {
    runId: 'c-nogas', workflow: 'payouts', relayer: 'ops', network: 'sepolia', chainId: 11155111, at: NOW - HOUR,
    outcome: 'confirmed', valueWei: '1000',
  };
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-spend-gap-');
  });
  afterAll(() => removeTempDir(dir));

  it('prints the gap line, logs a warning, records no entry, and the import still succeeds', () => {
    const res = importSends(dir, [NO_GAS], { CHAINFLOW_LOG_LEVEL: 'warn' });
    expect(res.status).toBe(0);
    expect(lines(res.stdout)).toEqual([
      expect.stringMatching(/^imported \d+ events \(0 already present\) from \d+ lines$/),
      'spend ledger: 0 entries from receipt reads, 1 receipt reads failed (no entry)',
    ]);
    const warning = lines(res.stderr).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(warning).toEqual([expect.objectContaining({ tx_hash: txHashOf(NO_GAS), network: 'sepolia', reason: expect.stringMatching(/no read providers/) })]);
    expect(hasStackTrace(res.stderr)).toBe(false);

    const spend = spendJson(chainflow(['spend', '--json'], { cwd: dir }));
    expect({ entries: spend.entries, tx_count: spend.summary.total.tx_count }).toEqual({ entries: [], tx_count: 0 });
    const txs = JSON.parse(chainflow(['history', 'txs', '--json'], { cwd: dir }).stdout) as { items: { run_id: string; status: string; outcome: string }[] };
    expect(txs.items.map((s) => [s.run_id, s.status, s.outcome])).toEqual([['c-nogas', 'settled', 'confirmed']]);

    // importing the same file again: nothing new, so no second receipt read and no second gap
    const again = importSends(dir, [NO_GAS]);
    expect(again.status).toBe(0);
    expect(again.stdout).not.toMatch(/spend ledger:/);
  });
});

describe('chainflow spend in the network\'s own native unit', () => {
  const POLYGON: SendSpec = {
    runId: 'c-poly', workflow: 'payouts', relayer: 'ops-poly', network: 'polygon', chainId: 137, at: NOW - HOUR,
    outcome: 'confirmed', valueWei: String(2n * ETHER), receipt: { gasUsed: '21000', effectiveGasPrice: String(30n * GWEI) },
  };
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-spend-pol-');
    writeConfig(dir, { networks: { polygon: { chain_id: 137, native_symbol: 'POL', rpc: [{ env: 'POLYGON_RPC' }] } } });
  });
  afterAll(() => removeTempDir(dir));

  it('shows amounts in the configured native symbol', () => {
    const env = { POLYGON_RPC: 'http://127.0.0.1:9/never-called' };
    expect(importSends(dir, [POLYGON], env).status).toBe(0);
    const t = tables(chainflow(['spend'], { cwd: dir, env }));
    expect(rowsByKey(t.NETWORK!)).toEqual({ polygon: ['1', '0.00063 POL', '2 POL', '0', '0 POL'] });
    expect(t.TOTAL!.rows).toEqual([['total', '1', '0.00063 POL', '2 POL', '0', '0 POL']]);
  });
});
