/**
 * `npm run bench -- --lighthouse`: Lighthouse's accessibility and best-practices scores of the runs view (issue #30:
 * at least 0.98 each), light and dark, against a server in this process on the demo journal (a SQLite file under
 * .bench/lighthouse/). Everything is local (127.0.0.1), no network needed. Lighthouse is not a dependency of
 * chainflow: it is looked up as $LIGHTHOUSE (its CLI) or `lighthouse` on PATH, and the case says how to install it
 * outside the repository and skips when there is none. Chrome: $CHROME_PATH, else Debian's /usr/bin/chromium.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { WriteDemoJournal } from '../src/application/journal/demo-journal.use-case';
import { openRoot } from '../src/bin/root';
import { startServer } from '../src/bin/server';

/** The target for each category. */
export const LIGHTHOUSE_TARGET = 0.98;
const CATEGORIES = ['accessibility', 'best-practices'] as const;
const INSTALL = 'mkdir -p /tmp/lh && cd /tmp/lh && npm init -y && npm i lighthouse; then LIGHTHOUSE=/tmp/lh/node_modules/.bin/lighthouse npm run bench -- --lighthouse';

export interface LighthouseScore {
  readonly theme: 'light' | 'dark';
  readonly version: string;
  readonly scores: Readonly<Record<string, number>>;
  /** Audits that scored below 1 (id: title). */
  readonly flagged: readonly string[];
}

/** The Lighthouse CLI to run, or undefined. */
function lighthouseCli(): string | undefined {
  if (process.env.LIGHTHOUSE) return existsSync(process.env.LIGHTHOUSE) ? process.env.LIGHTHOUSE : undefined;
  const found = spawnSync('sh', ['-c', 'command -v lighthouse'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : undefined;
}

interface Report {
  lighthouseVersion: string;
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { id: string; title: string; score: number | null; scoreDisplayMode: string }>;
}

/** Scores of each theme, or a line saying why nothing was measured. */
export async function benchLighthouse(options: { work: string; log: (msg: string) => void }): Promise<LighthouseScore[] | string> {
  const cli = lighthouseCli();
  if (!cli) return `skipped: Lighthouse not found ($LIGHTHOUSE or lighthouse on PATH). To measure: ${INSTALL}`;
  const chrome = process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chrome)) return `skipped: no Chrome at ${chrome} (set CHROME_PATH, or apt-get install -y chromium)`;
  const dir = join(options.work, 'lighthouse');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chainflow.yaml'), 'chainflow_version: 1\nstorage: { url: "sqlite:demo.db" }\n');
  const root = await openRoot({ cwd: dir, configPath: join(dir, 'chainflow.yaml'), profile: 'server' });
  const server = await startServer(root, { port: 0, host: '127.0.0.1', engine: false, logger: pino({ level: 'silent' }) });
  try {
    await root.container.get(WriteDemoJournal).execute();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/#/runs`;
    const results: LighthouseScore[] = [];
    for (const theme of ['light', 'dark'] as const) {
      const out = join(dir, `runs-${theme}.json`);
      // The page follows prefers-color-scheme until a theme is chosen; Blink's setting is how headless Chrome sets it.
      const flags = `--headless --no-sandbox --disable-gpu --blink-settings=preferredColorScheme=${theme === 'dark' ? 0 : 1}`;
      options.log(`lighthouse: ${url} (${theme})`);
      // Spawned, not spawnSync: the server it measures answers from this process's event loop.
      const run = spawn(cli, [url, `--only-categories=${CATEGORIES.join(',')}`, `--chrome-flags=${flags}`, '--output=json', `--output-path=${out}`, '--quiet'], {
        env: { ...process.env, CHROME_PATH: chrome }, stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      run.stderr!.on('data', (d: Buffer) => void (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => run.once('close', resolve));
      if (code !== 0) throw new Error(`lighthouse exited ${code}: ${stderr.slice(-2000)}`);
      const report = JSON.parse(readFileSync(out, 'utf8')) as Report;
      results.push({
        theme, version: report.lighthouseVersion,
        scores: Object.fromEntries(CATEGORIES.map((c) => [c, report.categories[c]?.score ?? 0])),
        flagged: Object.values(report.audits)
          .filter((a) => a.score !== null && a.score < 1 && !['informative', 'notApplicable', 'manual'].includes(a.scoreDisplayMode))
          .map((a) => `${a.id}: ${a.title}`),
      });
    }
    return results;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await root.close();
  }
}

export function renderLighthouse(result: LighthouseScore[] | string): { text: string; pass: boolean } {
  if (typeof result === 'string') return { text: ['## Lighthouse (runs view)', '', `- ${result}`, ''].join('\n'), pass: true };
  const pass = result.every((r) => Object.values(r.scores).every((s) => s >= LIGHTHOUSE_TARGET));
  const lines = ['## Lighthouse (runs view, demo journal)', ''];
  for (const r of result) {
    const scores = Object.entries(r.scores).map(([c, s]) => `${c} **${s.toFixed(2)}**`).join(', ');
    lines.push(`- ${r.theme}: ${scores} (Lighthouse ${r.version}) — target ≥ ${LIGHTHOUSE_TARGET} each: ${Object.values(r.scores).every((s) => s >= LIGHTHOUSE_TARGET) ? 'met' : '**missed**'}`);
    for (const f of r.flagged) lines.push(`  - flagged: ${f}`);
  }
  lines.push('');
  return { text: lines.join('\n'), pass };
}
