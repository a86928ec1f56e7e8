/**
 * `npm run bench -- --events` (alone: `--events --live`), issue #28's live figures: the real `chainflow start` with an
 * event workflow on an anvil node that mines a block every second (`--block-time 1`: a chain has blocks on a clock;
 * automine would seal each transaction in a block of its own, 20 blocks a second, and "1 block" would mean nothing).
 * A contract emits one `Tick(seq)` log per transaction, 20 transactions a second for 60 s, each sent at its planned
 * moment (`emit`). Measured:
 * - log to run start: `emit` to the run's `run.started` time (the run's `created_at`); target poll_interval + 1 block;
 * - lag: GET /api/workflows every 250 ms (`lag_blocks`, as the engine journaled it), and beside it the chain's head at
 *   that moment minus the workflow's `cursor_block` (what the operator's lag really is);
 * - 0 duplicates and 0 missed against the canonical chain's logs (key: block hash, log index);
 * - a reorg of depth 3 at 40 s, under the same load (anvil_reorg: the removed blocks' transactions land again in the
 *   new blocks, as a real reorg re-includes them): `reorg.response` for exactly the runs of the removed blocks' logs,
 *   and the time from the reorg to the last response journaled (GET /api/history/reorgs every 100 ms);
 * - where a log's wait goes: the chain's head read every 20 ms (when each block was sealed) and the engine's head reads
 *   seen at a JSON-RPC proxy in front of anvil (when each poll started).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { web3 } from '../src/adapters/chain/web3-module';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../test/support/anvil';
import { freePort } from '../test/support/process';
import { startRpcProxy } from '../test/support/rpc-proxy';
import { waitLive } from './engine';
import { all } from './sends';
import { percentile } from './timing';

type Log = (msg: string) => void;

const RATE = 20;
const SECONDS = 60;
const POLL_MS = 1_000;
const BLOCK_MS = 1_000;
const REORG_DEPTH = 3;
const REORG_AT_S = 40;
const LAG_SAMPLE_MS = 250;
const EMITTER = '0x00000000000000000000000000000000000e0e02';
const SENDER = ANVIL_ACCOUNTS[0]!.address;

interface Pct { readonly p50: number; readonly p95: number; readonly max: number; readonly n: number }

export interface LiveFigures {
  readonly load: string;
  readonly emitted: number;
  readonly emitSeconds: number;
  readonly runs: number;
  readonly canonicalLogs: number;
  readonly duplicates: number;
  readonly missed: number;
  /** emit → run.started, ms (logs of the reorg's new blocks left out: they waited for the reorg). */
  readonly toRunStart: Pct;
  /** emit → the first step's first attempt started, ms (when the engine took the run). */
  readonly toFirstStep: Pct;
  /** Between two polls (the engine's head reads, seen at a proxy in front of anvil), ms. */
  readonly pollGap: Pct;
  /** Where a log's wait goes, ms: emit → its block sealed (the chain's part, at most a block) … */
  readonly toSeal: Pct;
  /** … → the first poll after the seal read the head (the poll's phase, at most poll_interval) … */
  readonly sealToPoll: Pct;
  /** … → run.started (the poll's work: the logs, the headers of their blocks). */
  readonly inPoll: Pct;
  readonly lagApi: Pct;
  readonly lagChain: Pct;
  readonly reorg: ReorgFigures;
}

export interface ReorgFigures {
  readonly ok: boolean;
  readonly note: string;
  readonly removedLogs: number;
  /** Runs started by a log of a removed block. */
  readonly expected: number;
  readonly responses: number;
  /** Responses for exactly the expected runs, each once. */
  readonly exact: boolean;
  /** The reorg (anvil_reorg answered) to the last response visible in GET /api/history/reorgs, ms. */
  readonly toLastResponseMs: number;
  /** The reorg to the rollback the responses record (their `created_at`), ms. */
  readonly toRollbackMs: number;
}

/** Runtime code: LOG1(topic Tick(uint256), data = the call's first word). PUSH1 0 CALLDATALOAD PUSH1 0 MSTORE PUSH32 t PUSH1 32 PUSH1 0 LOG1 STOP */
function emitterCode(): string {
  const topic = String(web3().eth.abi.encodeEventSignature('Tick(uint256)')).slice(2);
  return `0x6000356000527f${topic}60206000a100`;
}

function pct(samples: readonly number[]): Pct {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN, n: sorted.length };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const hex = (n: number): string => `0x${n.toString(16)}`;

function config(stub: string, from: number): string {
  return `chainflow_version: 1
storage:
  url: sqlite:live.db
networks:
  anvil: { chain_id: 31337, rpc: [ { env: BENCH_RPC } ], poll_interval: ${POLL_MS / 1000}s }
workflows:
  ticks:
    trigger: { kind: event, network: anvil, address: "${EMITTER}", event: "Tick(uint256 value)", confirmations: 1, from_block: ${from} }
    steps:
      - { id: notify, type: http_call, method: POST, url: "${stub}/tick", body: { seq: "\${{ trigger.payload.value }}" } }
    on_reorg:
      - { id: undo, type: http_call, method: POST, url: "${stub}/undo", body: { run: "\${{ reorg.run_id }}" } }
`;
}

/** A local service the steps call: answers 200 at once. */
async function stubServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as T;
}

/** The chain's head, read every 20 ms: when each block was sealed (to 20 ms). */
interface ChainWatch { head: number; readonly sealedAt: Map<number, number>; stop(): Promise<void> }

async function watchChain(anvil: Anvil): Promise<ChainWatch> {
  const first = Number(await anvil.rpc<string>('eth_blockNumber'));
  const watch = { head: first, sealedAt: new Map([[first, Date.now()]]), stop: async () => undefined };
  let on = true;
  const loop = (async () => {
    while (on) {
      await sleep(20);
      const head = Number(await anvil.rpc<string>('eth_blockNumber'));
      for (let n = watch.head + 1; n <= head; n++) watch.sealedAt.set(n, Date.now());
      watch.head = head;
    }
  })().catch(() => {
    // anvil stopped under it (the case failed): nothing more to watch
  });
  watch.stop = async () => {
    on = false;
    await loop;
  };
  return watch;
}

interface Block { number: string; hash: string; transactions: Array<{ from: string; to: string; gas: string; nonce: string; input: string }> }

/**
 * A reorg of depth 3 that the engine sees whole: once the engine's head (GET /api/workflows) is the chain's, anvil's
 * interval mining is paused for the moment it takes to read the top blocks and replace them (else a block sealed in
 * between would be removed unread, its transactions lost and every later nonce queued behind the gap), and no
 * transaction is sent meanwhile. The same transactions land again in the new blocks, each at its old offset.
 */
async function reorg(anvil: Anvil, chain: ChainWatch, engineHead: () => Promise<number | null>, hold: (until: Promise<unknown>) => void): Promise<{ at: number; removed: Set<string>; added: Set<string>; removedLogs: number; replaced: boolean; note: string }> {
  let done: () => void = () => undefined;
  hold(new Promise<void>((resolve) => {
    done = resolve;
  }));
  let head: number;
  const blocks: Block[] = [];
  let at: number;
  try {
    for (;;) {
      while ((await engineHead()) !== chain.head) await sleep(10);
      await anvil.rpc('evm_setIntervalMining', [0]);
      head = Number(await anvil.rpc<string>('eth_blockNumber'));
      if ((await engineHead()) === head) break;
      await anvil.rpc('evm_setIntervalMining', [BLOCK_MS / 1000]);
    }
    for (let n = head - REORG_DEPTH + 1; n <= head; n++) blocks.push(await anvil.rpc<Block>('eth_getBlockByNumber', [hex(n), true]));
    const pairs = blocks.flatMap((b, offset) => b.transactions.map((t) => [{ from: t.from, to: t.to, gas: t.gas, nonce: t.nonce, data: t.input }, offset]));
    await anvil.rpc('anvil_reorg', [REORG_DEPTH, pairs]);
    at = Date.now();
  } finally {
    await anvil.rpc('evm_setIntervalMining', [BLOCK_MS / 1000]);
    done();
  }
  const after: Block[] = [];
  for (let n = head - REORG_DEPTH + 1; n <= head; n++) after.push(await anvil.rpc<Block>('eth_getBlockByNumber', [hex(n), false]));
  const removed = new Set(blocks.map((b) => b.hash));
  const added = new Set(after.map((b) => b.hash));
  const replaced = after.every((b) => !removed.has(b.hash));
  const removedLogs = blocks.reduce((n, b) => n + b.transactions.length, 0);
  return { at, removed, added, removedLogs, replaced, note: replaced ? `blocks ${head - REORG_DEPTH + 1}..${head} replaced` : 'a block was sealed during the reorg: not all replaced' };
}

/** When the count of reorg responses in GET /api/history/reorgs last grew: sampled every 100 ms until none came for 5 s. */
async function lastResponse(base: string, since: number): Promise<number> {
  let count = 0;
  let changed = since;
  while (Date.now() - since < 60_000 && (count === 0 || Date.now() - changed < 5_000)) {
    const now = (await all<ReorgItem>(base, '/api/history/reorgs?workflow=ticks')).length;
    if (now !== count) {
      process.stderr.write(`[bench] events live: ${now} reorg responses visible ${Date.now() - since} ms after the reorg\n`);
      count = now;
      changed = Date.now();
    }
    await sleep(100);
  }
  return changed;
}

interface RunItem { run_id: string; created_at: string; block: number }
interface Timeline { events: Array<{ kind: string; at: string; trigger?: { payload?: { value?: string } }; log?: { block_hash: string; log_index: number }; attempts?: Array<{ started_at: string }> }> }
interface ReorgItem { run_id: string; created_at: string }
interface WorkflowRow { workflow: string; cursor_block: number | null; head_block: number | null; lag_blocks: number | null }

/**
 * Each run's log (by its timeline) and its times from the log's emit: to run.started, to the first step, and split
 * into block sealed, the next poll's head read and run.started. Logs of the reorg's new blocks are keyed, not timed.
 */
async function timeRuns(base: string, runs: readonly RunItem[], seen: { emitAt: readonly number[]; chain: ChainWatch; headReads: readonly number[]; replayed: ReadonlySet<string> }) {
  const { emitAt, chain, headReads } = seen;
  const keys = new Map<string, number>();
  const byBlock = new Map<string, string[]>();
  const toRunStart: number[] = [];
  const toFirstStep: number[] = [];
  const toSeal: number[] = [];
  const sealToPoll: number[] = [];
  const inPoll: number[] = [];
  for (const run of runs) {
    const timeline = await getJson<Timeline>(`${base}/api/history/runs/${run.run_id}/timeline`);
    const trigger = timeline.events.find((e) => e.kind === 'trigger')!;
    const key = `${trigger.log!.block_hash}:${trigger.log!.log_index}`;
    keys.set(key, (keys.get(key) ?? 0) + 1);
    byBlock.set(trigger.log!.block_hash, [...(byBlock.get(trigger.log!.block_hash) ?? []), run.run_id]);
    if (seen.replayed.has(trigger.log!.block_hash)) continue;
    const emitted = emitAt[Number(trigger.trigger!.payload!.value)]!;
    const startedAt = Date.parse(run.created_at);
    toRunStart.push(startedAt - emitted);
    const sealed = chain.sealedAt.get(run.block);
    const polled = headReads.find((t) => t >= (sealed ?? startedAt));
    if (sealed !== undefined && polled !== undefined && polled <= startedAt) {
      toSeal.push(sealed - emitted);
      sealToPoll.push(polled - sealed);
      inPoll.push(startedAt - polled);
    }
    const step = timeline.events.find((e) => e.kind === 'step')?.attempts?.[0];
    if (step) toFirstStep.push(Date.parse(step.started_at) - emitted);
  }
  return { keys, byBlock, toRunStart, toFirstStep, toSeal, sealToPoll, inPoll };
}

export async function benchEventsLive(options: { work: string; repo: string; log: Log }): Promise<LiveFigures> {
  const { log } = options;
  const dir = join(options.work, 'events-live');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const anvil = await startAnvil({ args: ['--block-time', String(BLOCK_MS / 1000)] });
  const stub = await stubServer();
  // Forwards everything; notes when the engine reads the head (the start of each poll).
  const headReads: number[] = [];
  const proxy = await startRpcProxy(anvil.url, (request) => {
    if (request.method === 'eth_getBlockByNumber' && request.params[0] === 'latest') headReads.push(Date.now());
    return undefined;
  });
  let child: ChildProcess | undefined;
  try {
    await anvil.setCode(EMITTER, emitterCode());
    const from = Number(await anvil.rpc<string>('eth_blockNumber')) + 1;
    writeFileSync(join(dir, 'chainflow.yaml'), config(stub.url, from));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(options.repo, 'bin', 'run.js'), 'start', '--port', String(port), '--config', join(dir, 'chainflow.yaml')], {
      cwd: dir, env: { ...process.env, BENCH_RPC: proxy.url, CHAINFLOW_LOG_LEVEL: 'warn' }, stdio: ['ignore', 2, 'inherit'],
    }); // its log beside the bench's progress on stderr, out of the report
    await waitLive(port);
    const row = async (): Promise<WorkflowRow> => (await getJson<{ items: WorkflowRow[] }>(`${base}/api/workflows`)).items.find((w) => w.workflow === 'ticks')!;
    while ((await row()).head_block === null) await sleep(100);

    // Lag samples: the engine's lag_blocks, and the chain's head now minus the cursor, every 250 ms.
    const chain = await watchChain(anvil);
    const lagApi: number[] = [];
    const lagChain: number[] = [];
    let sampling = true;
    let samplerError: unknown;
    const sampler = (async () => {
      while (sampling) {
        const next = sleep(LAG_SAMPLE_MS);
        const [w, head] = await Promise.all([row(), anvil.rpc<string>('eth_blockNumber')]);
        if (w.lag_blocks !== null) lagApi.push(w.lag_blocks);
        if (w.cursor_block !== null) lagChain.push(Math.max(0, Number(head) - w.cursor_block));
        await next;
      }
    })().catch((err: unknown) => {
      samplerError = err;
    });

    const total = RATE * SECONDS;
    const emitAt: number[] = [];
    const firstNonce = Number(await anvil.rpc<string>('eth_getTransactionCount', [SENDER, 'pending']));
    let reorgDone: Promise<Awaited<ReturnType<typeof reorg>> & { lastResponseAt: number }> | undefined;
    let held: Promise<unknown> | undefined;
    const hold = (until: Promise<unknown>): void => {
      held = until;
    };
    const t0 = Date.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      if (due > Date.now()) await sleep(due - Date.now());
      if (i === RATE * REORG_AT_S) reorgDone = reorg(anvil, chain, async () => (await row()).head_block, hold).then(async (r) => ({ ...r, lastResponseAt: await lastResponse(base, r.at) }));
      await held;
      emitAt[i] = Date.now();
      await anvil.rpc('eth_sendTransaction', [{ from: SENDER, to: EMITTER, gas: '0x10000', nonce: hex(firstNonce + i), data: `0x${i.toString(16).padStart(64, '0')}` }]);
    }
    const emitSeconds = (Date.now() - t0) / 1000;
    log(`events live: ${total} logs emitted in ${emitSeconds.toFixed(1)} s`);
    const reorged = await reorgDone!;
    log(`events live: reorg of depth ${REORG_DEPTH} (${reorged.note})`);

    // Every transaction in a block, then the cursor past the last one.
    for (const t = Date.now(); Number(await anvil.rpc<string>('eth_getTransactionCount', [SENDER, 'latest'])) < firstNonce + total; await sleep(100)) {
      if (Date.now() - t > 30_000) throw new Error('events live: transactions still not in a block 30 s after the last was sent (anvil lost one?)');
    }
    const last = Number(await anvil.rpc<string>('eth_blockNumber'));
    for (const t = Date.now(); ((await row()).cursor_block ?? 0) < last && Date.now() - t < 30_000;) await sleep(100);
    sampling = false;
    await sampler;
    if (samplerError) throw samplerError;
    await chain.stop();

    const logs = await anvil.rpc<Array<{ blockHash: string; logIndex: string }>>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(last), address: EMITTER }]);
    const runs = await all<RunItem>(base, '/api/history/runs?workflow=ticks');
    const { keys, byBlock, toRunStart, toFirstStep, toSeal, sealToPoll, inPoll } = await timeRuns(base, runs, { emitAt, chain, headReads, replayed: reorged.added });
    const canonical = new Set(logs.map((l) => `${l.blockHash.toLowerCase()}:${Number(l.logIndex)}`));
    const duplicates = [...keys.values()].reduce((s, n) => s + n - 1, 0);
    const missed = [...canonical].filter((k) => !keys.has(k)).length;

    const responses = await all<ReorgItem>(base, '/api/history/reorgs?workflow=ticks');
    const expected = new Set([...reorged.removed].flatMap((h) => byBlock.get(h) ?? []));
    const answered = responses.map((r) => r.run_id);
    const exact = answered.length === expected.size && new Set(answered).size === answered.length && answered.every((id) => expected.has(id));
    const rollbackAt = responses.length ? Math.min(...responses.map((r) => Date.parse(r.created_at))) : NaN;
    const figures: LiveFigures = {
      load: await loadAverage(), emitted: total, emitSeconds, runs: runs.length, canonicalLogs: canonical.size, duplicates, missed,
      toRunStart: pct(toRunStart), toFirstStep: pct(toFirstStep), pollGap: pct(headReads.slice(1).map((t, i) => t - headReads[i]!)), toSeal: pct(toSeal), sealToPoll: pct(sealToPoll), inPoll: pct(inPoll), lagApi: pct(lagApi), lagChain: pct(lagChain),
      reorg: {
        ok: reorged.replaced, note: reorged.note, removedLogs: reorged.removedLogs, expected: expected.size, responses: responses.length, exact,
        toLastResponseMs: reorged.lastResponseAt - reorged.at, toRollbackMs: rollbackAt - reorged.at,
      },
    };
    log(`events live: ${runs.length} runs for ${canonical.size} canonical logs, ${duplicates} duplicates, ${missed} missed; ` +
      `emit→run.started p95 ${figures.toRunStart.p95} ms; lag p95 ${figures.lagApi.p95} (engine) / ${figures.lagChain.p95} (chain); ` +
      `reorg: ${responses.length} responses for ${expected.size} runs (exact: ${exact}), last after ${figures.reorg.toLastResponseMs} ms`);
    return figures;
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exit = new Promise<void>((r) => child!.once('exit', () => r()));
      child.kill('SIGTERM');
      await exit;
    }
    await new Promise<void>((r) => stub.server.close(() => r()));
    await proxy.stop();
    await anvil.stop();
  }
}

async function loadAverage(): Promise<string> {
  const { loadavg } = await import('node:os');
  return loadavg().map((l) => l.toFixed(2)).join(', ');
}

export function renderEventsLive(f: LiveFigures): { text: string; pass: boolean } {
  const target = POLL_MS + BLOCK_MS;
  const runStartOk = f.toRunStart.p95 <= target;
  const lagOk = f.lagApi.p95 <= 1 && f.lagChain.p95 <= 1;
  const countOk = f.duplicates === 0 && f.missed === 0;
  const reorgOk = f.reorg.ok && f.reorg.exact && f.reorg.expected > 0 && f.reorg.toLastResponseMs <= 2 * POLL_MS;
  const verdict = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');
  const ms = (p: Pct): string => `p50 ${p.p50} ms, p95 ${p.p95} ms, max ${p.max} ms (${p.n})`;
  const blocks = (p: Pct): string => `p50 ${p.p50}, p95 ${p.p95}, max ${p.max} (${p.n} samples)`;
  const lines = [
    `# chainflow bench: the event trigger live (${RATE} logs/s for ${SECONDS} s, anvil --block-time ${BLOCK_MS / 1000}, poll_interval ${POLL_MS / 1000}s, chainflow start)`, '',
    `load average at the end: ${f.load}; ${f.emitted} logs emitted in ${f.emitSeconds.toFixed(1)} s`, '',
    `- log (emit) → run.started: ${ms(f.toRunStart)} — target p95 ≤ poll_interval + 1 block (${target} ms): ${verdict(runStartOk)}`,
    `- log (emit) → the run's first step started: ${ms(f.toFirstStep)} (context)`,
    `- where it goes: emit → block sealed ${ms(f.toSeal)}; sealed → the next poll's head read ${ms(f.sealToPoll)}; head read → run.started ${ms(f.inPoll)}; ` +
      `between two polls ${ms(f.pollGap)}`,
    `- lag_blocks, GET /api/workflows every ${LAG_SAMPLE_MS} ms: ${blocks(f.lagApi)}; the chain's head minus cursor_block: ${blocks(f.lagChain)} — target p95 ≤ 1: ${verdict(lagOk)}`,
    `- ${f.runs} runs for ${f.canonicalLogs} canonical logs: ${f.duplicates} duplicates, ${f.missed} missed — target 0 and 0: ${verdict(countOk)}`,
    `- reorg of depth ${REORG_DEPTH} at ${REORG_AT_S} s (${f.reorg.note}; ${f.reorg.removedLogs} logs in the removed blocks): ${f.reorg.responses} responses for the ${f.reorg.expected} runs ` +
      `of removed logs (exactly those: ${f.reorg.exact}); rollback ${f.reorg.toRollbackMs} ms, last response visible ${f.reorg.toLastResponseMs} ms after the reorg — target exactly, within 2 polls (${2 * POLL_MS} ms): ${verdict(reorgOk)}`, '',
  ];
  return { text: lines.join('\n'), pass: runStartOk && lagOk && countOk && reorgOk };
}
