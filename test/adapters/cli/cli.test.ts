/**
 * The real `chainflow` program (oclif, compiled in dist/) run as a child process in a temp folder
 * (SPEC: CLI; CONTRACT sections 3 and 6). Each spawn costs about half a second, so assertions are grouped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { aPark, aRun, aTxHash, HOUR, T0, toNdjson } from '../../mothers/journal-events';
import { assertBuilt, chainflow, hasStackTrace, lines, type CliResult } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

interface RunItem {
  run_id: string;
  status: string;
  tx_hashes: string[];
  step_ids: string[];
  relayers: string[];
  approval_status: string | null;
  created_at: string;
}
interface Page {
  items: RunItem[];
  cursor: string | null;
  has_more: boolean;
}

function json<T>(res: CliResult): T {
  expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  return JSON.parse(res.stdout) as T;
}

/** A one-line usage error: exit 2, one line on stderr naming `name`, no stack trace. */
function expectUsageError(res: CliResult, name: RegExp): void {
  expect({ status: res.status, stderrLines: lines(res.stderr).length }).toEqual({ status: 2, stderrLines: 1 });
  expect(res.stderr).toMatch(name);
  expect(hasStackTrace(res.stderr)).toBe(false);
}

beforeAll(() => assertBuilt());

describe('chainflow demo, history and runs timeline', () => {
  let dir: string;
  let demoRuns: number;
  let all: RunItem[];
  const run = (...args: string[]): CliResult => chainflow(args, { cwd: dir });

  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-');
    const demo = run('demo');
    expect(demo.status).toBe(0);
    const match = /(\d+) runs/.exec(demo.stdout);
    expect(match).not.toBeNull();
    demoRuns = Number(match![1]);
    all = json<Page>(run('history', '--json', '--limit', '500')).items;
  });
  afterAll(() => removeTempDir(dir));

  it('demo writes its sample once, into .chainflow/ under the working folder', () => {
    expect(fs.existsSync(path.join(dir, '.chainflow', 'chainflow.db'))).toBe(true);
    expect(demoRuns).toBeGreaterThan(5);
    expect(all).toHaveLength(demoRuns);
    const again = run('demo');
    expect(again.status).toBe(0);
    expect(json<Page>(run('history', '--json', '--limit', '500')).items).toHaveLength(demoRuns);
  });

  it('history --json prints the API envelope, newest first, default page 50', () => {
    const page = json<Page>(run('history', '--json'));
    expect(Object.keys(page).sort()).toEqual(['cursor', 'has_more', 'items']);
    expect(page.items).toHaveLength(Math.min(50, demoRuns));
    expect(page.has_more).toBe(demoRuns > 50);
    expect(page.cursor === null).toBe(demoRuns <= 50);
    expect(page.items.map((r) => r.run_id)).toEqual(all.slice(0, page.items.length).map((r) => r.run_id));
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1]!, all[i]!];
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.run_id > b.run_id)).toBe(true);
    }
  });

  it('history runs --limit 5 prints a table and the next-page hint, and the cursor gives the next rows', () => {
    const table = run('history', 'runs', '--limit', '5');
    expect(table.status).toBe(0);
    const out = lines(table.stdout);
    expect(out[0]).toMatch(/^RUN\s+WORKFLOW\s+STATUS/);
    const rows = out.slice(1, -1);
    expect(rows.map((l) => l.split(/\s+/)[0])).toEqual(all.slice(0, 5).map((r) => r.run_id));
    const hint = /^next page: --cursor (\S+)$/.exec(out[out.length - 1]!);
    expect(hint).not.toBeNull();

    const next = json<Page>(run('history', 'runs', '--json', '--limit', '5', '--cursor', hint![1]!));
    expect(next.items.map((r) => r.run_id)).toEqual(all.slice(5, 10).map((r) => r.run_id));
    expect(next.has_more).toBe(demoRuns > 10);
  });

  it('the last page prints no hint', () => {
    const last = all[all.length - 2]!;
    const page = json<Page>(run('history', '--json', '--limit', String(all.length - 1)));
    expect(page.items[page.items.length - 1]!.run_id).toBe(last.run_id);
    const rest = run('history', '--limit', '5', '--cursor', page.cursor!);
    expect(rest.status).toBe(0);
    expect(rest.stdout).not.toMatch(/next page/);
    expect(lines(rest.stdout)).toHaveLength(2);
  });

  it('maps filter flags to the run filters', () => {
    const ids = (...args: string[]): string[] => json<Page>(run('history', '--json', '--limit', '500', ...args)).items.map((r) => r.run_id);
    const expected = (pred: (r: RunItem) => boolean): string[] => all.filter(pred).map((r) => r.run_id);

    const failed = expected((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(ids('--status', 'failed')).toEqual(failed);

    const withTx = all.find((r) => r.tx_hashes.length > 0)!;
    expect(withTx).toBeDefined();
    const tx = withTx.tx_hashes[0]!;
    expect(ids('--tx-hash', tx)).toEqual(expected((r) => r.tx_hashes.includes(tx)));

    const stepId = all.flatMap((r) => r.step_ids).find((s) => all.some((r) => !r.step_ids.includes(s)))!;
    expect(stepId).toBeDefined();
    expect(ids('--step-id', stepId)).toEqual(expected((r) => r.step_ids.includes(stepId)));

    const relayer = all.flatMap((r) => r.relayers)[0]!;
    expect(ids('--relayer', relayer, '--approval-status', 'approved')).toEqual(
      expected((r) => r.relayers.includes(relayer) && r.approval_status === 'approved'),
    );
    expect(ids('--run-id', all[3]!.run_id)).toEqual([all[3]!.run_id]);
  });

  it('bad flag values exit 2 with a one-line reason and no stack trace', () => {
    expectUsageError(run('history', '--limit', '0'), /limit/);
    expectUsageError(run('history', '--status', 'bogus'), /status/);
    expectUsageError(run('history', '--nope'), /nope/);
    expectUsageError(run('history', 'runs', '--since', '5x'), /since/);
    expectUsageError(run('history', '--cursor', 'garbage'), /cursor/);
  });

  it('runs timeline prints one run chronologically, and --json prints { run, events }', () => {
    const id = all.find((r) => r.tx_hashes.length > 0 && r.approval_status !== null)?.run_id ?? all.find((r) => r.tx_hashes.length > 0)!.run_id;
    const item = all.find((r) => r.run_id === id)!;

    const human = run('runs', 'timeline', id);
    expect(human.status).toBe(0);
    const out = lines(human.stdout);
    expect(out[0]).toMatch(new RegExp(`^run ${id.replace(/[.]/g, '\\.')}\\s`));
    expect(out.some((l) => /\btrigger\b/.test(l))).toBe(true);
    expect(out.some((l) => /\bstep\b/.test(l))).toBe(true);
    expect(human.stdout).toContain(item.tx_hashes[0]!);

    const timeline = json<{ run: RunItem; events: { kind: string; at: string }[] }>(run('runs', 'timeline', id, '--json'));
    expect(Object.keys(timeline).sort()).toEqual(['events', 'run']);
    expect(timeline.run).toEqual(item);
    expect(timeline.events[0]!.kind).toBe('trigger');
    const times = timeline.events.map((e) => e.at);
    expect([...times].sort()).toEqual(times);
    for (const e of timeline.events) expect(['trigger', 'step', 'approval', 'reorg_step']).toContain(e.kind);
  });

  it('runs timeline of an unknown run exits 1; a malformed id exits 2', () => {
    const unknown = run('runs', 'timeline', 'no-such-run');
    expect(unknown.status).toBe(1);
    expect(lines(unknown.stderr)).toEqual([expect.stringMatching(/run not found/)]);
    expectUsageError(run('runs', 'timeline', 'bad id'), /run.?id/);
  });
});

describe('chainflow journal import', () => {
  let dir: string;
  const run = (args: string[], input?: string): CliResult => chainflow(args, { cwd: dir, input });
  const runIds = (): string[] => json<Page>(run(['history', '--json', '--limit', '500'])).items.map((r) => r.run_id);
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  const good = [
    ...aRun({ runId: 'imp-1', at: T0, send: { relayer: 'ops', txHash: aTxHash('imp-1') }, approval: { decision: 'approved' } }),
    ...aRun({ runId: 'imp-2', at: T0 + HOUR, failure: { kind: 'http_error' } }),
  ];

  beforeAll(() => {
    dir = makeTempDir('chainflow-import-');
  });
  afterAll(() => removeTempDir(dir));

  it('imports a valid file, then imports nothing new the second time (idempotent)', () => {
    const file = write('good.ndjson', toNdjson(good));
    const first = run(['journal', 'import', file]);
    expect({ status: first.status, stderr: first.stderr }).toEqual({ status: 0, stderr: '' });
    expect(first.stdout).toMatch(new RegExp(`imported ${good.length} events \\(0 already present\\)`));
    expect(runIds()).toEqual(['imp-2', 'imp-1']);

    const again = run(['journal', 'import', 'good.ndjson']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`imported 0 events \\(${good.length} already present\\)`));
    expect(runIds()).toEqual(['imp-2', 'imp-1']);
    const timeline = json<{ events: unknown[] }>(run(['runs', 'timeline', 'imp-1', '--json']));
    expect(timeline.events.map((e) => (e as { kind: string }).kind)).toEqual(['trigger', 'step', 'approval', 'step']);
  });

  it('a file with bad lines names each of them, exits 1 and imports nothing', () => {
    const events = aRun({ runId: 'imp-bad', at: T0 + 2 * HOUR });
    const text = [
      JSON.stringify(events[0]), // 1: fine
      'not json', // 2
      JSON.stringify(events[1]), // 3: fine
      JSON.stringify({ ...events[2], at: 'yesterday' }), // 4
      JSON.stringify({ type: 'run.exploded', at: '2026-03-01T12:00:00Z' }), // 5
      '', // 6: blank lines are skipped
      JSON.stringify({ ...events[events.length - 1], run_id: 'bad id' }), // 7
    ].join('\n');
    const res = run(['journal', 'import', write('bad.ndjson', text)]);
    const numbered = lines(res.stderr).filter((l) => /^line \d+: /.test(l)).map((l) => Number(/^line (\d+)/.exec(l)![1]));
    expect(numbered).toEqual([2, 4, 5, 7]);
    expect(res.stderr).toMatch(/^line 4: at\b/m);
    expect(res.stderr).toMatch(/^line 7: run_id\b/m);
    expect(hasStackTrace(res.stderr)).toBe(false);
    expect(runIds()).not.toContain('imp-bad');
    expect(res.stderr).not.toMatch(/EEXIT/);
    expect(res.status).toBe(1);
  });

  /** 3000 runs, 12,000 events: more than two of the import's batches of 5000. */
  const manyRuns = (prefix: string, at: number): unknown[] => Array.from({ length: 3000 }, (_, i) => aRun({ runId: `${prefix}-${i}`, at: at + i })).flat();

  it('a bad line after thousands of good ones (batches already written in the transaction): names it, imports nothing', () => {
    const many = manyRuns('imp-many', T0 + 8 * HOUR);
    const text = `${toNdjson(many as never[])}{"type":"run.finished",\n`; // toNdjson ends its last line
    const res = run(['journal', 'import', write('late-bad.ndjson', text)]);
    expect(lines(res.stderr).filter((l) => /^line \d+: /.test(l))).toEqual([expect.stringMatching(new RegExp(`^line ${many.length + 1}: not valid JSON`))]);
    expect(res.status).toBe(1);
    expect(runIds().filter((id) => id.startsWith('imp-many-'))).toEqual([]);
  });

  it('an event the journal refuses in the first batch, a bad line thousands of lines later: the bad line is named', () => {
    const first = aRun({ runId: 'imp-refused', at: T0 + 9 * HOUR });
    const orphan = { type: 'send.settled', at: '2026-03-01T15:00:05Z', send_id: 'never-queued', outcome: 'confirmed' };
    const rest = manyRuns('imp-refused-more', T0 + 10 * HOUR);
    const events = [...first, orphan, ...rest, { ...first[0]!, at: 'yesterday' }];
    const res = run(['journal', 'import', write('refused-then-bad.ndjson', toNdjson(events as never[]))]);
    expect(lines(res.stderr).filter((l) => /^line \d+: /.test(l))).toEqual([expect.stringMatching(new RegExp(`^line ${events.length}: at\\b`))]);
    expect(res.status).toBe(1);
    expect(runIds()).not.toContain('imp-refused');
  });

  it('valid lines that refer to an unknown send_id: exits 1, names the line, imports nothing', () => {
    const events = aRun({ runId: 'imp-orphan', at: T0 + 3 * HOUR });
    const orphan = { type: 'send.submitted', at: '2026-03-01T15:00:05Z', send_id: 'never-queued', tx_hash: aTxHash('orphan') };
    const text = toNdjson([...events.slice(0, 2), orphan as never, ...events.slice(2)]);
    const res = run(['journal', 'import', write('orphan.ndjson', text)]);
    expect(lines(res.stderr).filter((l) => /^line \d+: /.test(l))).toEqual([expect.stringMatching(/^line 3: send_id: unknown send/)]);
    expect(runIds()).not.toContain('imp-orphan');
    expect(res.stderr).not.toMatch(/EEXIT/);
    expect(res.status).toBe(1);
  });

  it('a finished run parked: exits 1, names the line and why, imports nothing', () => {
    const events = aRun({ runId: 'imp-ended', at: T0 + 5 * HOUR });
    const text = toNdjson([...aRun({ runId: 'imp-ok', at: T0 + 6 * HOUR }), ...events, aPark('imp-ended', T0 + 7 * HOUR, { waitKind: 'delay' })]);
    const res = run(['journal', 'import', write('parked-after-end.ndjson', text)]);
    const line = lines(text).length;
    expect(lines(res.stderr).filter((l) => /^line \d+: /.test(l))).toEqual([`line ${line}: run_id: the run already succeeded: a finished run cannot be parked`]);
    expect(runIds()).not.toContain('imp-ok');
    expect(runIds()).not.toContain('imp-ended');
    expect(hasStackTrace(res.stderr)).toBe(false);
    expect(res.status).toBe(1);
  });

  it('- reads standard input', () => {
    const events = aRun({ runId: 'imp-stdin', at: T0 + 4 * HOUR });
    const res = run(['journal', 'import', '-'], toNdjson(events));
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`imported ${events.length} events`));
    expect(runIds()).toEqual(['imp-stdin', 'imp-2', 'imp-1']);
  });

  it('a missing file fails without a stack trace', () => {
    const res = run(['journal', 'import', 'does-not-exist.ndjson']);
    expect(res.status).not.toBe(0);
    expect(hasStackTrace(res.stderr)).toBe(false);
  });
});

describe('a bad config file stops the command', () => {
  let dir: string;
  const BAD = 'chainflow_version: 2\nserver:\n  auth:\n    token: abc\n';

  beforeAll(() => {
    dir = makeTempDir('chainflow-badconfig-');
  });
  afterAll(() => removeTempDir(dir));

  const expectStopped = (res: CliResult): void => {
    expect(res.status).not.toBe(0);
    expect(res.status).not.toBeNull();
    const out = lines(res.stderr);
    expect(out.filter((l) => /^chainflow_version: /.test(l))).toHaveLength(1);
    expect(out.filter((l) => /^server\.auth\.token: /.test(l))).toHaveLength(1);
    // Besides a heading, every line is one problem: a path, then what is wrong.
    expect(out.filter((l) => !/^invalid configuration:?$/i.test(l)).every((l) => /^[A-Za-z0-9_.[\]-]+: \S/.test(l))).toBe(true);
    expect(hasStackTrace(res.stderr)).toBe(false);
    expect(res.stdout).toBe('');
    // Nothing was done: no storage was created.
    expect(fs.existsSync(path.join(dir, '.chainflow'))).toBe(false);
  };

  it('chainflow.yaml in the working folder', () => {
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), BAD);
    expectStopped(chainflow(['demo'], { cwd: dir }));
    fs.rmSync(path.join(dir, 'chainflow.yaml'));
  });

  it('--config PATH and CHAINFLOW_CONFIG', () => {
    fs.writeFileSync(path.join(dir, 'other.yaml'), BAD);
    expectStopped(chainflow(['history', '--config', 'other.yaml'], { cwd: dir }));
    expectStopped(chainflow(['history'], { cwd: dir, env: { CHAINFLOW_CONFIG: path.join(dir, 'other.yaml') } }));
  });
});
