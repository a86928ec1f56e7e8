/**
 * `promtool check metrics` (Prometheus's own linter) over an exposition text: the problems it reports, one line each
 * (an empty list: the text passes). `npm test` provides promtool first (scripts/ensure-promtool.js); without it this
 * throws, saying how to get it, rather than pass.
 */
import { spawnSync } from 'node:child_process';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { findPromtool } = require('../../scripts/ensure-promtool.js') as { findPromtool(): string | undefined };

export function promtoolProblems(text: string): string[] {
  const promtool = findPromtool();
  if (!promtool) throw new Error('promtool not found: run `node scripts/ensure-promtool.js` (npm test does), or set PROMTOOL');
  const res = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  // Exit 0: clean; 3: lint problems (listed); anything else (1: a parse error) is a problem in itself.
  const problems = `${res.stdout}${res.stderr}`.split('\n').map((l) => l.trim()).filter(Boolean);
  if (res.status !== 0 && res.status !== 3) return problems.length ? problems : [`promtool exited ${res.status}`];
  return problems;
}
