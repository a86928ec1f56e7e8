/**
 * The CLI's cold start: `chainflow history --json` with the README's example config (docs/examples/chainflow.yaml,
 * its storage pointed at the bench journal) in a fresh process each time (the real launcher, bin/run.js, with its
 * V8 code cache and the oclif plugins of package.json), p50 of 10 after one warm-up run for the OS file cache; and
 * a bare `node -e ''` between them, for the floor any Node CLI pays on this machine under the same load.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CliFigures } from './report';
import { nowMs, stats } from './timing';

/** Issue #30: `chainflow history --json` cold with the README's example config, p50 of 10: at most this… */
export const CLI_COLD_P50_TARGET_MS = 250;
/** …or at most this many times a bare `node -e ''` measured in the same run (a loaded machine slows both). */
export const CLI_COLD_NODE_RATIO_TARGET = 3.5;
const RUNS = 10;

/** The README's example config with the bench journal's `storage` section (taken from `configPath`) appended. */
function exampleConfig(repo: string, configPath: string): string {
  const storage = /^storage:\n(?:[ \t]+.*\n?)+/m.exec(readFileSync(configPath, 'utf8'))?.[0] ?? '';
  const path = join(dirname(configPath), 'chainflow-example.yaml');
  writeFileSync(path, `${readFileSync(join(repo, 'docs', 'examples', 'chainflow.yaml'), 'utf8')}\n${storage.trimEnd()}\n`);
  return path;
}

export function measureCliCold(repo: string, configPath: string, expectedItems: number): CliFigures {
  const example = exampleConfig(repo, configPath);
  const samples: number[] = [];
  const bare: number[] = [];
  for (let k = 0; k <= RUNS; k++) {
    const t = nowMs();
    const res = spawnSync(process.execPath, [join(repo, 'bin', 'run.js'), 'history', '--json', '--config', example], { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 });
    const ms = nowMs() - t;
    if (res.status !== 0) throw new Error(`chainflow history --json exited ${res.status}: ${(res.stderr || res.stdout || '').slice(0, 500)}`);
    const items = (JSON.parse(res.stdout) as { items: unknown[] }).items;
    if (items.length !== expectedItems) throw new Error(`chainflow history --json printed ${items.length} runs, expected ${expectedItems}`);
    const b = nowMs();
    spawnSync(process.execPath, ['-e', ''], { cwd: repo });
    if (k > 0) {
      samples.push(ms);
      bare.push(nowMs() - b);
    }
  }
  const s = stats(samples);
  return { runs: RUNS, p50: s.p50, max: s.max, samples, nodeBaselineMs: stats(bare).p50 };
}

/** The plugins the measured start loads (package.json `oclif.plugins`). */
export function cliPlugins(repo: string): string[] {
  return (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { oclif?: { plugins?: string[] } }).oclif?.plugins ?? [];
}

export function renderCliCold(cli: CliFigures, plugins: readonly string[]): { lines: string[]; pass: boolean; verdict: string } {
  const ratio = cli.p50 / cli.nodeBaselineMs;
  const pass = cli.p50 <= CLI_COLD_P50_TARGET_MS || ratio <= CLI_COLD_NODE_RATIO_TARGET;
  return {
    lines: [
      `## CLI cold: \`node bin/run.js history --json --config .bench/chainflow-example.yaml\` (docs/examples/chainflow.yaml on the bench journal; plugins: ${plugins.join(', ') || 'none'})`, '',
      '| runs | p50 (ms) | max (ms) | samples (ms) | bare `node -e \'\'` p50 (ms) |', '|---:|---:|---:|---|---:|',
      `| ${cli.runs} | ${cli.p50.toFixed(0)} | ${cli.max.toFixed(0)} | ${cli.samples.map((s) => s.toFixed(0)).join(' ')} | ${cli.nodeBaselineMs.toFixed(0)} |`, '',
    ],
    pass,
    verdict: `CLI cold: p50 ${cli.p50.toFixed(0)} ms of ${cli.runs}, max ${cli.max.toFixed(0)} ms (${ratio.toFixed(1)}x a bare node start here, ${cli.nodeBaselineMs.toFixed(0)} ms; target: p50 <= ${CLI_COLD_P50_TARGET_MS} ms or <= ${CLI_COLD_NODE_RATIO_TARGET}x)`,
  };
}
