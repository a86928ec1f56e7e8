/**
 * `chainflow history txs|waiting|approvals|reorgs|replays|workflows` on the demo journal, through the real
 * compiled program (SPEC: CLI; CONTRACT section 6). Each spawn costs about half a second: assertions are grouped.
 */
import { assertBuilt, chainflow, hasStackTrace, lines, type CliResult } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

type Item = Record<string, unknown>;
interface Page {
  items: Item[];
  cursor: string | null;
  has_more: boolean;
}

function json(res: CliResult): Page {
  expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  const page = JSON.parse(res.stdout) as Page;
  expect(Object.keys(page).sort()).toEqual(['cursor', 'has_more', 'items']);
  return page;
}

/** A table: exit 0, a header line matching `header`, rows whose first column is returned, and the hint if any. */
function table(res: CliResult, header: RegExp): { firstColumn: string[]; hint: string | null } {
  expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
  const out = lines(res.stdout);
  expect(out[0]).toMatch(header);
  const hint = /^next page: --cursor (\S+)$/.exec(out[out.length - 1]!);
  const rows = out.slice(1, hint ? -1 : undefined);
  return { firstColumn: rows.map((l) => l.split(/\s+/)[0]!), hint: hint ? hint[1]! : null };
}

function expectUsageError(res: CliResult, name: RegExp): void {
  expect({ status: res.status, stdout: res.stdout, stderrLines: lines(res.stderr).length }).toEqual({ status: 2, stdout: '', stderrLines: 1 });
  expect(res.stderr).toMatch(name);
  expect(hasStackTrace(res.stderr)).toBe(false);
}

beforeAll(() => assertBuilt());

describe('chainflow history lists on the demo journal', () => {
  let dir: string;
  const run = (...args: string[]): CliResult => chainflow(args, { cwd: dir });
  let sends: Item[];

  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-lists-');
    expect(run('demo').status).toBe(0);
    sends = json(run('history', 'txs', '--since', '7d', '--json', '--limit', '500')).items;
  });
  afterAll(() => removeTempDir(dir));

  it('history txs --since 7d prints a table of sends, newest first; --json gives send items', () => {
    expect(sends.length).toBeGreaterThan(5);
    const statuses = new Set(sends.map((s) => s.status));
    for (const status of statuses) expect(['queued', 'parked', 'submitted', 'settled']).toContain(status);
    for (const status of ['queued', 'submitted', 'settled']) expect(statuses).toContain(status);
    for (const s of sends) expect(s).toEqual(expect.objectContaining({ send_id: expect.any(String), explorer_url: s.tx_hash ? expect.anything() : null }));
    const known = sends.find((s) => s.network === 'sepolia' && s.tx_hash)!;
    expect(known.explorer_url).toBe(`https://sepolia.etherscan.io/tx/${known.tx_hash as string}`);
    for (let i = 1; i < sends.length; i++) {
      const [a, b] = [sends[i - 1]!, sends[i]!];
      expect(a.created_at! > b.created_at! || (a.created_at === b.created_at && a.send_id! > b.send_id!)).toBe(true);
    }
    const t = table(run('history', 'txs', '--since', '7d'), /^SEND\s+RUN\s+WORKFLOW\s+NETWORK\s+RELAYER\s+STATUS/);
    expect(t.firstColumn).toEqual(sends.slice(0, 50).map((s) => s.send_id));
    expect(t.hint === null).toBe(sends.length <= 50);
  });

  it('--limit 1 prints the next-page hint, and --cursor gives the next row', () => {
    const t = table(run('history', 'txs', '--limit', '1'), /^SEND\s/);
    expect(t.firstColumn).toEqual([sends[0]!.send_id]);
    expect(t.hint).not.toBeNull();
    const next = json(run('history', 'txs', '--json', '--limit', '1', '--cursor', t.hint!));
    expect(next.items.map((s) => s.send_id)).toEqual([sends[1]!.send_id]);
    expect(next.has_more).toBe(sends.length > 2);
  });

  it('history txs filter flags map to the filters', () => {
    const relayer = sends.find((s) => s.status === 'settled')!.relayer as string;
    const settled = json(run('history', 'txs', '--json', '--status', 'settled', '--relayer', relayer, '--limit', '500')).items;
    const expected = sends.filter((s) => s.status === 'settled' && s.relayer === relayer).map((s) => s.send_id);
    expect(expected.length).toBeLessThan(sends.length);
    expect(settled.map((s) => s.send_id)).toEqual(expected);
  });

  it('history waiting lists the parked runs: every wait kind in the demo', () => {
    const res = run('history', 'waiting');
    const t = table(res, /^RUN\s+WORKFLOW\s+WAITS FOR/);
    expect(t.hint).toBeNull();
    expect(t.firstColumn.length).toBe(5);
    const kinds = lines(res.stdout).slice(1).map((l) => l.split(/\s+/)[2]);
    expect(new Set(kinds)).toEqual(new Set(['tx', 'delay', 'event', 'approval']));
  });

  it('history approvals lists pending ones only; --all lists decisions too, with who and why', () => {
    const all = json(run('history', 'approvals', '--all', '--json', '--limit', '500')).items;
    const pending = all.filter((a) => a.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    expect(all.length).toBeGreaterThan(pending.length);
    const decided = all.find((a) => a.status !== 'pending')!;
    expect(decided.decided_by).toEqual(expect.any(String));
    expect(decided.reason).toEqual(expect.any(String));
    const t = table(run('history', 'approvals'), /^APPROVAL\s+RUN\s+WORKFLOW\s+STATUS/);
    expect(t.firstColumn).toEqual(pending.map((a) => a.approval_id));
  });

  it('history reorgs and history replays print their tables', () => {
    const reorgs = table(run('history', 'reorgs'), /^REORG\s+RUN\s+WORKFLOW\s+NETWORK\s+BLOCK\s+REMOVED BLOCK HASH\s+STEPS/);
    expect(reorgs.firstColumn.length).toBeGreaterThan(0);
    expect(reorgs.firstColumn.every((id) => id.startsWith('demo-'))).toBe(true);
    const replays = json(run('history', 'replays', '--json'));
    expect(new Set(replays.items.map((s) => s.kind))).toEqual(new Set(['replay', 'test']));
    for (const s of replays.items) expect(s.run_count).toEqual(expect.any(Number));
    const t = table(run('history', 'replays'), /^SESSION\s+KIND\s+WORKFLOW\s+RUNS/);
    expect(t.firstColumn).toEqual(replays.items.map((s) => s.session_id));
  });

  it('history workflows prints the overview; --json rows page by name with --cursor', () => {
    const t = table(run('history', 'workflows'), /^WORKFLOW\s+PAUSED\s+TRIGGER\s+LAST RUN/);
    expect(t.firstColumn.length).toBeGreaterThan(1);
    expect([...t.firstColumn].sort()).toEqual(t.firstColumn);
    const first = json(run('history', 'workflows', '--json', '--limit', '1'));
    expect(first.items.map((w) => w.workflow)).toEqual([t.firstColumn[0]]);
    expect(first.has_more).toBe(true);
    const second = json(run('history', 'workflows', '--json', '--limit', '1', '--cursor', first.cursor!));
    expect(second.items.map((w) => w.workflow)).toEqual([t.firstColumn[1]]);
  });

  it('bad flag values exit 2 with a one-line reason', () => {
    expectUsageError(run('history', 'txs', '--status', 'bogus'), /status/);
    expectUsageError(run('history', 'waiting', '--wait-kind', 'sleep'), /wait_kind|wait-kind/);
    expectUsageError(run('history', 'replays', '--kind', 'live'), /kind/);
    expectUsageError(run('history', 'workflows', '--limit', '0'), /limit/);
  });
});
