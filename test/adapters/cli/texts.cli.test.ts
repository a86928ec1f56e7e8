/**
 * What the CLI says (issue #13, item 7): topics described as topics (not by one of their commands), help texts in
 * the user's words, amounts of the timeline in the native unit as everywhere else, explorer links in `history txs`.
 */
import { aRun, aTxHash, T0, toNdjson } from '../../mothers/journal-events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, chainflow, REPO_ROOT } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

beforeAll(() => assertBuilt());

describe('CLI texts', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-texts-');
    writeConfig(dir, { networks: { base: { chain_id: 8453, native_symbol: 'ETH', rpc: [{ env: 'CF_TEXTS_RPC' }] } } });
  });
  afterAll(() => removeTempDir(dir));

  it('the top-level help describes each topic in its own words, not by one of its commands', () => {
    const help = chainflow(['--help'], { cwd: dir }).stdout;
    const section = (name: string): Map<string, string> => {
      const body = help.split(/\n(?=[A-Z]+\n)/).find((s) => s.startsWith(`${name}\n`)) ?? '';
      const rows = new Map<string, string>();
      let last = '';
      for (const line of body.split('\n').slice(1)) {
        const m = /^ {2}(\S+)\s+(.*)$/.exec(line);
        if (m) rows.set((last = m[1]!), m[2]!);
        else if (last && line.trim()) rows.set(last, `${rows.get(last)} ${line.trim()}`);
      }
      return rows;
    };
    const topics = section('TOPICS');
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { summary?: string }> };
    const summaries = new Set(Object.values(manifest.commands).map((c) => c.summary));
    expect(summaries.size).toBeGreaterThan(20);
    expect([...topics.keys()]).toEqual(expect.arrayContaining(['approvals', 'archive', 'history', 'journal', 'plugins', 'runs', 'spend', 'token', 'workflows']));
    for (const [topic, description] of topics) expect({ topic, isACommandSummary: summaries.has(description) }).toEqual({ topic, isACommandSummary: false });
    expect(topics.get('runs')).toBe('One run: its timeline, a diff of two runs, cancel');
  });

  it('help texts speak to the user (no "SPEC"), and spend export lists its columns', () => {
    const help = chainflow(['spend', 'export', '--help'], { cwd: dir }).stdout.replace(/\s+/g, ' ');
    expect(help).not.toMatch(/SPEC/);
    expect(help).toContain('recorded_at, workflow, relayer, network, chain_id, tx_hash, gas_used, effective_gas_price, gas_spend_wei, value_wei, reverted, run_id, step_run_id');
  });

  it('the timeline shows budget checks in the native unit, like the rest', () => {
    const events = aRun({
      runId: 'texts-budget', at: T0, network: 'base',
      send: { network: 'base', chainId: 8453, txHash: aTxHash('texts'), budgetChecks: [{ budget: 'daily_gas', spentWei: '38000000000000000', capWei: '200000000000000000', allowed: true }] },
    });
    const file = path.join(dir, 'budget.ndjson');
    fs.writeFileSync(file, toNdjson(events));
    expect(chainflow(['journal', 'import', file], { cwd: dir }).status).toBe(0);
    const out = chainflow(['runs', 'timeline', 'texts-budget'], { cwd: dir }).stdout;
    expect(out).toMatch(/budget daily_gas \(max_gas_spend\): spent 0\.038 ETH of 0\.2 ETH, allowed/);
    expect(out).not.toMatch(/38000000000000000/);
  });

  it('history txs shows each send\'s explorer link where the network has one', () => {
    const out = chainflow(['history', 'txs'], { cwd: dir }).stdout;
    expect(out).toContain(`https://basescan.org/tx/${aTxHash('texts')}`);
  });
});
