/**
 * A child process of `npm run bench -- --import`: an engine appending to the SQLite file the bench imports into,
 * as `chainflow start` does while an operator imports a journal. It drives CONCURRENCY runs at a time of a
 * three-step workflow (http_calls to a local server that answers at once) until SIGTERM, then prints one JSON line:
 * runs finished, and the p50 / max time of a run (a run whose append waited for the import's lock shows in the max).
 * Usage: node dist/bench/engine-load.js DIR (DIR holds engine-load.yaml, written by bench/import.ts).
 */
import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Engine } from '../src/application/engine/engine';
import { openRoot } from '../src/bin/root';
import { nowMs, stats } from './timing';

const CONCURRENCY = 4;

/** The child's config: the same SQLite file as the import's, and one small workflow. */
export function engineLoadConfig(dbName: string, stub: string): string {
  return `chainflow_version: 1
storage:
  url: sqlite:${dbName}
workflows:
  three:
    trigger: { kind: manual }
    steps:
      - { id: a, type: http_call, url: "${stub}/a" }
      - { id: b, type: http_call, url: "${stub}/b" }
      - { id: c, type: http_call, url: "${stub}/c" }
`;
}

async function main(): Promise<void> {
  const [dir, dbName] = process.argv.slice(2) as [string, string];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const configPath = join(dir, 'engine-load.yaml');
  writeFileSync(configPath, engineLoadConfig(dbName, `http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  const root = await openRoot({ cwd: dir, configPath, profile: 'server', logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
  const engine = root.container.get(Engine);
  const times: number[] = [];
  let stopping = false;
  let failures = 0;
  const errors = new Map<string, number>();
  process.once('SIGTERM', () => (stopping = true));
  const worker = async (): Promise<void> => {
    while (!stopping) {
      const t = nowMs();
      try {
        await engine.runHere({ workflow: 'three', trigger: { kind: 'manual', summary: 'bench engine load' } });
        times.push(nowMs() - t);
      } catch (err) {
        failures++;
        const message = err instanceof Error ? err.message : String(err);
        errors.set(message, (errors.get(message) ?? 0) + 1);
      }
      // Warmed up after 20 runs, finished or failed (failures are reported with the figures, not waited out).
      if (times.length + failures === 20) process.stdout.write('ready\n');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const s = stats(times);
  process.stdout.write(`${JSON.stringify({ runs: times.length, failures, errors: [...errors].map(([m, n]) => `${n}× ${m}`), p50Ms: s.p50, p99Ms: s.p99, maxMs: s.max })}\n`);
  server.close();
  await root.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`[engine-load] failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 2;
});
