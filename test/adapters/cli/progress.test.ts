/**
 * Progress of long work (issue #13, item 10): drawn with cli-progress on a terminal, never when neither stdout
 * nor stderr is one, never under --json, never on a stdout that carries the command's data.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { Progress, type ProgressStream } from '../../../src/adapters/cli/progress';
import { manyRuns, T0, toNdjson } from '../../mothers/journal-events';
import { assertBuilt, BIN, chainflow } from '../../support/cli';
import { makeTempDir, removeTempDir } from '../../support/server';

/** A stream that says it is (or is not) a terminal and keeps what is written to it. */
function stream(isTTY: boolean): ProgressStream & { text(): string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => {
    text += c.toString('utf8');
  });
  return Object.assign(out, { isTTY, columns: 100, text: () => text });
}

describe('Progress', () => {
  it('draws on a terminal stderr: a count while the total is unknown, then a bar with percentage', () => {
    const stderr = stream(true);
    const stdout = stream(false);
    const progress = Progress.open({ streams: { stderr, stdout } })!;
    expect(progress).toBeDefined();
    progress.update('validating', 50_000, 'lines');
    progress.update('importing', 250, 'events', 1000);
    progress.update('importing', 1000, 'events', 1000);
    progress.stop();
    expect(stderr.text()).toContain('validating: 50,000 lines');
    expect(stderr.text()).toMatch(/importing \[#{8}\.{22}\] 25% 250 \/ 1,000 events/);
    expect(stdout.text()).toBe('');
  });

  it('draws on stdout when only stdout is a terminal, unless the data goes there', () => {
    const stdout = stream(true);
    const progress = Progress.open({ streams: { stderr: stream(false), stdout } })!;
    progress.update('removing', 1, 'tables', 4);
    progress.stop();
    expect(stdout.text()).toContain('removing [');
    expect(Progress.open({ stdoutBusy: true, streams: { stderr: stream(false), stdout: stream(true) } })).toBeUndefined();
  });

  it('is silent when neither is a terminal, and under --json', () => {
    expect(Progress.open({ streams: { stderr: stream(false), stdout: stream(false) } })).toBeUndefined();
    expect(Progress.open({ json: true, streams: { stderr: stream(true), stdout: stream(true) } })).toBeUndefined();
  });
});

describe('progress in the real program', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    assertBuilt();
    dir = makeTempDir('chainflow-progress-');
    file = path.join(dir, 'events.ndjson');
    fs.writeFileSync(file, toNdjson(manyRuns(300, { newest: T0 })));
  });
  afterAll(() => removeTempDir(dir));

  /** The program in a pseudo-terminal (util-linux `script`): what a user at a terminal sees. */
  const inTerminal = (args: string[]): { status: number | null; output: string } => {
    const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const res = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
    return { status: res.status, output: res.stdout };
  };

  it('import, export, archive and retention draw a bar on a terminal', () => {
    const imported = inTerminal(['journal', 'import', file]);
    expect(imported.status).toBe(0);
    expect(imported.output).toMatch(/importing \[[#.]+\] \d+% [\d,]+ \/ [\d,]+ lines/);
    expect(imported.output).toMatch(/imported \d+ events/);
    expect(inTerminal(['history', 'export', '--out', path.join(dir, 'out.json')]).output).toMatch(/exporting: [\d,]+ records/);
    expect(inTerminal(['archive', 'export', '--older-than', '1d', '--out', path.join(dir, 'archive.json')]).output).toMatch(/archiving: [\d,]+ records/);
    expect(inTerminal(['retention', '--older-than', '1d', '--dry-run']).output).not.toMatch(/removing \[/);
    expect(inTerminal(['retention', '--older-than', '1d']).output).toMatch(/removing \[[#.]+\] \d+% [\d,]+ \/ [\d,]+ tables/);
  });

  it('nothing is drawn under --json, nor when the output is not a terminal', () => {
    expect(inTerminal(['retention', '--older-than', '1d', '--json']).output).not.toMatch(/removing|\u001b\[\?25l/);
    const piped = chainflow(['journal', 'import', file], { cwd: dir });
    expect({ status: piped.status, stderr: piped.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
