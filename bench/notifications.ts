/**
 * `npm run bench -- --notifications`: a notification from the failing step to the receiver's 2xx (issue #30), on a
 * SQLite file under .bench/notifications/. An engine in this process drives runs whose one http_call gets a 500
 * from a local server; a local Standard Webhooks receiver answers 200 at once. Per run: the receiver's answer time
 * minus the failing step's `finished_at` in the journal (one clock, one process), and apart from it the
 * receiver's own time (request start to answer), which is what the target allows beyond.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../src/application/engine/engine';
import { GetRunTimeline } from '../src/application/history/get-run-timeline.use-case';
import { openRoot } from '../src/bin/root';
import { stats, type Stats } from './timing';

/** The target: p50 at most this far beyond the receiver's own time. */
export const NOTIFY_TARGET_MS = 100;
const RUNS = 50;
const WHSEC = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;

export interface NotificationFigures {
  /** Failing step's end to the receiver's 2xx, minus the receiver's own time, per run (ms). */
  readonly beyond: Stats;
  readonly receiverOwn: Stats;
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function benchNotifications(options: { work: string; log: (msg: string) => void }): Promise<NotificationFigures> {
  const dir = join(options.work, 'notifications');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const answered = new Map<string, { at: number; own: number }>();
  const receiver = await listen((req, res) => {
    const start = performance.now();
    let body = '';
    req.on('data', (d: Buffer) => void (body += d.toString()));
    req.on('end', () => {
      res.writeHead(200).end();
      const runId = (JSON.parse(body) as { data: { run_id: string } }).data.run_id;
      answered.set(runId, { at: Date.now(), own: performance.now() - start });
    });
  });
  const far = await listen((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(500).end('{}'));
  });
  writeFileSync(join(dir, 'chainflow.yaml'), `chainflow_version: 1
storage: { url: sqlite:notify.db }
secrets: { hook: { env: BENCH_NOTIFY_SECRET } }
notifications: { ops: { kind: webhook, url: "${receiver.url}/hook", secret: { secret: hook } } }
notify: { on: [run_failed], to: [ops] }
workflows:
  failing:
    trigger: { kind: manual }
    steps: [ { id: call, type: http_call, url: "${far.url}/fail", retry: { attempts: 1 } } ]
`);
  const root = await openRoot({ cwd: dir, configPath: join(dir, 'chainflow.yaml'), env: { BENCH_NOTIFY_SECRET: WHSEC }, profile: 'server', logger: { warn: () => undefined, info: () => undefined, error: () => undefined } });
  const engine = root.container.get(Engine);
  engine.start();
  const beyond: number[] = [];
  const own: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      // One at a time: each figure is the path of one notification, not a queue behind others.
      const { runId } = await engine.submit({ workflow: 'failing', trigger: { kind: 'manual', summary: 'bench' } });
      const deadline = Date.now() + 10_000;
      while (!answered.has(runId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      const got = answered.get(runId);
      if (!got) throw new Error(`run ${runId}: no notification within 10 s`);
      const timeline = await root.container.get(GetRunTimeline).execute(runId);
      const step = timeline.events.find((e) => e.kind === 'step') as unknown as { attempts: Array<{ finished_at: string }> };
      beyond.push(got.at - Date.parse(step.attempts[0]!.finished_at) - got.own);
      own.push(got.own);
    }
  } finally {
    await engine.stop();
    await root.close();
    receiver.server.close();
    far.server.close();
  }
  options.log(`notifications: ${RUNS} runs measured`);
  return { beyond: stats(beyond), receiverOwn: stats(own) };
}

export function renderNotifications(f: NotificationFigures): { text: string; pass: boolean } {
  const pass = f.beyond.p50 <= NOTIFY_TARGET_MS;
  const text = [
    '## Notifications', '',
    `- A failing step to the receiver's 2xx (Standard Webhooks, local receiver), beyond the receiver's own time: p50 **${f.beyond.p50.toFixed(1)} ms**, p99 ${f.beyond.p99.toFixed(1)} ms over ${f.beyond.n} runs — target ≤ ${NOTIFY_TARGET_MS} ms: ${pass ? 'met' : '**missed**'}`,
    `- The receiver's own time: p50 ${f.receiverOwn.p50.toFixed(2)} ms`, '',
  ].join('\n');
  return { text, pass };
}
