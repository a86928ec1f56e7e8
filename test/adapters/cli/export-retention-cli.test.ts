import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aRun, DAY, iso, toNdjson } from '../../mothers/journal-events';
import { assertBuilt, chainflow, hasStackTrace, lines } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

describe('chainflow history export, runs diff, archive export and retention (real CLI, SQLite file)', () => {
  let dir: string;
  const run = (...args: string[]) => chainflow(args, { cwd: dir });
  const now = Date.now();

  beforeAll(() => {
    assertBuilt();
    dir = makeTempDir();
    const events = [
      ...aRun({ runId: 'old-a', workflow: 'payouts', at: iso(now - 40 * DAY), steps: [{ stepId: 'fetch', output: { price: '1' } }] }),
      ...aRun({ runId: 'old-b', workflow: 'payouts', at: iso(now - 35 * DAY), steps: [{ stepId: 'fetch', output: { price: '2' } }] }),
      ...aRun({ runId: 'new-a', workflow: 'keeper', at: iso(now - DAY) }),
    ];
    writeFileSync(join(dir, 'events.ndjson'), toNdjson(events));
    expect(run('journal', 'import', 'events.ndjson').status).toBe(0);
  });
  afterAll(() => removeTempDir(dir));

  it('exports csv and json to a file', () => {
    const csv = run('history', 'export', '--workflow', 'payouts', '--format', 'csv', '--out', 'p.csv');
    expect(csv.status).toBe(0);
    expect(csv.stdout).toMatch(/exported 2 runs/);
    expect(lines(readFileSync(join(dir, 'p.csv'), 'utf8'))).toHaveLength(3);
    const json = run('history', 'export', '--since', '7d', '--format', 'json', '--out', 'n.json');
    expect(json.status).toBe(0);
    const doc = JSON.parse(readFileSync(join(dir, 'n.json'), 'utf8')) as { runs: { run_id: string }[] };
    expect(doc.runs.map((r) => r.run_id)).toEqual(['new-a']);
  });

  it('refuses a bad format with exit 2 and one line', () => {
    const res = run('history', 'export', '--format', 'xml', '--out', 'x');
    expect(res.status).toBe(2);
    expect(lines(res.stderr)).toHaveLength(1);
    expect(res.stderr).toMatch(/format/);
    expect(hasStackTrace(res.stderr)).toBe(false);
  });

  it('diffs two runs, readable and as JSON', () => {
    const human = run('runs', 'diff', 'old-a', 'old-b');
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(/~ fetch/);
    expect(human.stdout).toMatch(/output\.price: 1 -> 2/);
    const json = JSON.parse(run('runs', 'diff', 'old-a', 'old-b', '--json').stdout) as { steps: { step_id: string }[] };
    expect(json.steps.map((s) => s.step_id)).toContain('fetch');
    expect(run('runs', 'diff', 'old-a', 'nope').status).toBe(1);
  });

  it('archives, then prunes what lies before the cut, reporting numbers', () => {
    const archive = run('archive', 'export', '--older-than', '30d', '--out', 'archive.json');
    expect(archive.status).toBe(0);
    expect(archive.stdout).toMatch(/archived 2 runs/);
    const doc = JSON.parse(readFileSync(join(dir, 'archive.json'), 'utf8')) as { runs: { run_id: string }[] };
    expect(doc.runs.map((r) => r.run_id)).toEqual(['old-b', 'old-a']);

    const dry = run('retention', '--older-than', '30d', '--dry-run');
    expect(dry.stdout).toMatch(/would remove 2 runs/);
    expect(JSON.parse(run('history', '--json').stdout).items).toHaveLength(3);

    const real = JSON.parse(run('retention', '--older-than', '30d', '--json').stdout) as { runs: number; events: number; dry_run: boolean };
    expect(real).toMatchObject({ runs: 2, dry_run: false });
    expect(real.events).toBeGreaterThan(0);
    expect(JSON.parse(run('history', '--json').stdout).items.map((r: { run_id: string }) => r.run_id)).toEqual(['new-a']);
  });

  it('refuses retention without a valid --older-than', () => {
    expect(run('retention').status).toBe(2);
    const bad = run('retention', '--older-than', 'soon');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/older-than/);
  });
});
