/**
 * The CLI's cold start: `chainflow history --json` in a fresh process each time (the real launcher, bin/run.js,
 * with its V8 code cache and the oclif plugins of package.json), p50 of 10 after one warm-up run for the OS file
 * cache; and a bare `node -e ''` for the floor any Node CLI pays on this machine.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliFigures } from './report';
import { nowMs, stats } from './timing';

/** Issue #13: `chainflow history --json` cold, with the plugins, p50 of 10. */
export const CLI_COLD_P50_TARGET_MS = 300;
const RUNS = 10;

export function measureCliCold(repo: string, configPath: string, expectedItems: number): CliFigures {
  const samples: number[] = [];
  for (let k = 0; k <= RUNS; k++) {
    const t = nowMs();
    const res = spawnSync(process.execPath, [join(repo, 'bin', 'run.js'), 'history', '--json', '--config', configPath], { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 });
    const ms = nowMs() - t;
    if (res.status !== 0) throw new Error(`chainflow history --json exited ${res.status}: ${(res.stderr || res.stdout || '').slice(0, 500)}`);
    const items = (JSON.parse(res.stdout) as { items: unknown[] }).items;
    if (items.length !== expectedItems) throw new Error(`chainflow history --json printed ${items.length} runs, expected ${expectedItems}`);
    if (k > 0) samples.push(ms);
  }
  const bare: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t = nowMs();
    spawnSync(process.execPath, ['-e', ''], { cwd: repo });
    bare.push(nowMs() - t);
  }
  const s = stats(samples);
  return { runs: RUNS, p50: s.p50, max: s.max, samples, nodeBaselineMs: stats(bare).p50 };
}

/** The plugins the measured start loads (package.json `oclif.plugins`). */
export function cliPlugins(repo: string): string[] {
  return (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { oclif?: { plugins?: string[] } }).oclif?.plugins ?? [];
}

export function renderCliCold(cli: CliFigures, plugins: readonly string[]): { lines: string[]; pass: boolean; verdict: string } {
  const pass = cli.p50 <= CLI_COLD_P50_TARGET_MS;
  return {
    lines: [
      `## CLI cold: \`node bin/run.js history --json --config .bench/chainflow.yaml\` (plugins: ${plugins.join(', ') || 'none'})`, '',
      '| runs | p50 (ms) | max (ms) | samples (ms) | bare `node -e \'\'` p50 (ms) |', '|---:|---:|---:|---|---:|',
      `| ${cli.runs} | ${cli.p50.toFixed(0)} | ${cli.max.toFixed(0)} | ${cli.samples.map((s) => s.toFixed(0)).join(' ')} | ${cli.nodeBaselineMs.toFixed(0)} |`, '',
    ],
    pass,
    verdict: `CLI cold: p50 ${cli.p50.toFixed(0)} ms of ${cli.runs}, max ${cli.max.toFixed(0)} ms (target: p50 <= ${CLI_COLD_P50_TARGET_MS}; bare node start here: ${cli.nodeBaselineMs.toFixed(0)} ms)`,
  };
}
