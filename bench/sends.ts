/**
 * `npm run bench -- --sends`: the send path's figures (issue #11) on a real anvil node, SQLite under .bench/sends/:
 * - overhead: a one-step send workflow driven in this process; per run, its time minus the time the chain's own
 *   answers took (every ChainReader/ChainSender call but the local signing is timed by a wrapper and subtracted);
 * - burst: 200 sends of one relayer started at once on one engine with automine off, through a counting JSON-RPC
 *   proxy: the provider requests per second with one send in flight and with 200 in flight (CONTRACT 8.7 bounds them
 *   per relayer lane, not per send); then one block (evm_mine): consecutive nonces, all landed, no nonce error;
 * - crash: payouts fed to the real `chainflow start` while it is killed (kill -9) at 20 random moments and restarted
 *   each time; then every recipient's balance, the history and the ledger are compared with the chain, to the wei.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { Engine } from '../src/application/engine/engine';
import { StartRun } from '../src/application/engine/start-run.use-case';
import { JournalWriter } from '../src/application/ports/journal-writer';
import { SubmitSend } from '../src/application/sends/submit-send.use-case';
import { ChainReader, ChainSender } from '../src/application/ports/chain';
import { SendMetrics } from '../src/application/ports/send-metrics';
import { Web3Chain } from '../src/adapters/chain/web3-chain';
import { Database } from '../src/adapters/knex/knex-journal.writer';
import { openRoot, type Root } from '../src/bin/root';
import type { SendOutcome } from '../src/domain/journal/journal-event';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../test/support/anvil';
import { startRpcProxy, type RpcProxy } from '../test/support/rpc-proxy';
import { waitLive } from './engine';
import { benchSendFaults, renderSendFaults, type FaultFigures } from './sends-faults';
import { nowMs, stats, timed, type Stats } from './timing';

type Log = (msg: string) => void;

export interface SendFigures {
  /** SubmitSend (simulate, budget check, nonce, sign, journal, broadcast) minus the chain's answers. */
  readonly overhead: Stats;
  readonly chain: Stats;
  /** A whole one-step send run (start, step, settle, end: every journal write of the run) minus the chain's answers. */
  readonly run: Stats;
  readonly burst: {
    sends: number; seconds: number; landed: number; consecutive: boolean; nonceErrors: number; failed: number;
    /** Provider requests per second (through the proxy) with one send in flight, and with all of them. */
    oneInFlightRps: number; allInFlightRps: number;
  };
  readonly crash: {
    kills: number; acknowledged: number; runs: number; succeeded: number; doublePayments: number; lostSends: number;
    ledgerGasWei: bigint; ledgerValueWei: bigint; balanceChangeWei: bigint; valueMovedWei: bigint; ledgerEqual: boolean; seconds: number;
  };
  /** Payouts through a provider answering 20% 503s and 10% rate limits (bench/sends-faults.ts). */
  readonly faults: FaultFigures;
}

const OVERHEAD_RELAYER = ANVIL_ACCOUNTS[1]!;
const BURST_RELAYER = ANVIL_ACCOUNTS[2]!;
const CRASH_RELAYER = ANVIL_ACCOUNTS[3]!;
const RECIPIENT = '0x00000000000000000000000000000000000B3Ec0';

function config(): string {
  return `chainflow_version: 1
storage:
  url: sqlite:sends.db
engine:
  lease_ttl: 2s
  poll_interval: 1s
networks:
  anvil: { chain_id: 31337, rpc: [ { env: BENCH_RPC } ] }
  proxied: { chain_id: 31337, rpc: [ { env: BENCH_PROXY_RPC } ] }
relayers:
  one: { network: anvil, signer: { env: BENCH_ONE_KEY } }
  burst: { network: proxied, signer: { env: BENCH_BURST_KEY } }
  crash: { network: anvil, signer: { env: BENCH_CRASH_KEY } }
workflows:
  pay:
    trigger: { kind: manual }
    steps:
      - { id: pay, type: send, relayer: one, to: "${RECIPIENT}", value: "1" }
  burst:
    trigger: { kind: manual }
    steps:
      - { id: pay, type: send, relayer: burst, to: "${RECIPIENT}", value: "\${{ trigger.payload.amount }}" }
  payouts:
    trigger: { kind: manual }
    steps:
      - { id: pay, type: send, relayer: crash, to: "\${{ trigger.payload.to }}", value: "\${{ trigger.payload.amount }}" }
`;
}

function envOf(anvil: Anvil, proxy?: RpcProxy): Record<string, string> {
  return { BENCH_RPC: anvil.url, BENCH_PROXY_RPC: proxy?.url ?? anvil.url, BENCH_ONE_KEY: OVERHEAD_RELAYER.privateKey, BENCH_BURST_KEY: BURST_RELAYER.privateKey, BENCH_CRASH_KEY: CRASH_RELAYER.privateKey };
}


class Counting implements SendMetrics {
  readonly outcomes: SendOutcome[] = [];
  resyncs = 0;
  settled(outcome: SendOutcome): void {
    this.outcomes.push(outcome);
  }
  replaced(): void {}
  cancelled(): void {}
  nonceResynced(): void {
    this.resyncs++;
  }
  budgetRefused(): void {}
  receiptReadFailed(): void {}
}

async function openBench(dir: string, anvil: Anvil, proxy: RpcProxy, spent: { ms: number }, metrics: Counting): Promise<Root> {
  const root = await openRoot({ cwd: dir, configPath: join(dir, 'chainflow.yaml'), env: envOf(anvil, proxy), profile: 'server', logger: { error: () => undefined, warn: () => undefined, info: () => undefined } });
  const chain = timed(new Web3Chain(), spent);
  root.container.rebindSync(ChainReader).toConstantValue(chain);
  root.container.rebindSync(ChainSender).toConstantValue(chain);
  root.container.rebindSync(SendMetrics).toConstantValue(metrics);
  return root;
}

async function overhead(root: Root, spent: { ms: number }, runs: number, log: Log): Promise<{ overhead: Stats; chain: Stats; run: Stats }> {
  const engine = root.container.get(Engine);
  const submit = root.container.get(SubmitSend);
  const journal = root.container.get<JournalWriter>(JournalWriter);
  const over: number[] = [];
  const chain: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < runs + 20; i++) {
    // The send step's own work, as the step runs it: the run and the step's start journaled first (not timed).
    const runId = `bench-${i}-${Date.now().toString(36)}`;
    const at = new Date().toISOString();
    await journal.append([
      { type: 'run.started', at, run_id: runId, workflow: 'pay', session: 'live', trigger: { kind: 'manual', summary: 'bench' } },
      { type: 'step.started', at, run_id: runId, step_run_id: `${runId}.pay`, step_id: 'pay', step_type: 'send', attempt: 1 },
    ]);
    spent.ms = 0;
    let started = nowMs();
    const result = await submit.execute({
      runId, stepRunId: `${runId}.pay`, sendId: `${runId}.pay:1`, workflow: 'pay', session: 'live', relayer: 'one', to: RECIPIENT, valueWei: 1n,
      data: '0x', idempotencyKey: runId, simulate: true, detached: true,
    });
    const submitMs = nowMs() - started;
    const submitChain = spent.ms;
    if (result.kind !== 'submitted') throw new Error(`bench send not submitted: ${JSON.stringify(result)}`);
    spent.ms = 0;
    started = nowMs();
    await engine.runHere({ workflow: 'pay', trigger: { kind: 'manual', summary: 'bench' } });
    const runMs = nowMs() - started;
    if (i < 20) continue;
    over.push(submitMs - submitChain);
    chain.push(submitChain);
    whole.push(runMs - spent.ms);
  }
  const figures = { overhead: stats(over), chain: stats(chain), run: stats(whole) };
  log(`sends: send step overhead p50 ${figures.overhead.p50.toFixed(2)} ms (p99 ${figures.overhead.p99.toFixed(2)}), chain answers p50 ${figures.chain.p50.toFixed(2)} ms; whole run beyond the chain p50 ${figures.run.p50.toFixed(2)} ms`);
  return figures;
}

/** How long the provider requests of sends in flight are counted, per measure. */
const RATE_WINDOW_MS = 10_000;

async function burst(root: Root, anvil: Anvil, proxy: RpcProxy, metrics: Counting, count: number, log: Log): Promise<SendFigures['burst']> {
  const engine = root.container.get(Engine);
  const start = root.container.get(StartRun);
  const db = root.container.get<Knex>(Database);
  const first = Number(await anvil.rpc<string>('eth_getTransactionCount', [BURST_RELAYER.address, 'latest']));
  const resyncsBefore = metrics.resyncs;
  const runsIn = async (statuses: readonly string[]): Promise<number> =>
    Number(((await db('runs').where({ workflow: 'burst' }).whereIn('status', statuses).count({ n: '*' })) as { n: number }[])[0]!.n);
  const until = async (what: string, done: () => Promise<boolean>): Promise<void> => {
    for (let waited = 0; !(await done()); waited += 100) {
      if (waited > 300_000) throw new Error(`burst: ${what} not within 5 minutes`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** Provider requests per second while the sends started so far wait in the pool. */
  const rate = async (): Promise<number> => {
    proxy.reset();
    const from = nowMs();
    await new Promise((r) => setTimeout(r, RATE_WINDOW_MS));
    return proxy.total() / ((nowMs() - from) / 1000);
  };
  const startRuns = (from: number, to: number) => Promise.all(Array.from({ length: to - from }, (_, i) =>
    start.execute({ workflow: 'burst', trigger: { kind: 'manual', summary: 'bench', payload: { amount: String(from + i + 1) } } })));
  await anvil.rpc('evm_setAutomine', [false]);
  let seconds: number;
  let ids: unknown[];
  let oneInFlightRps: number;
  let allInFlightRps: number;
  try {
    engine.start();
    const t = nowMs();
    ids = await startRuns(0, 1);
    engine.poke();
    await until('one send in flight', async () => (await runsIn(['waiting'])) === 1);
    oneInFlightRps = await rate();
    ids.push(...(await startRuns(1, count)));
    engine.poke();
    await until(`${count} sends in flight`, async () => (await runsIn(['waiting'])) === count);
    allInFlightRps = await rate();
    await anvil.rpc('evm_mine');
    await until('the runs to end', async () => (await runsIn(['succeeded', 'failed', 'dead_lettered'])) === count);
    seconds = (nowMs() - t) / 1000;
  } finally {
    await anvil.rpc('evm_setAutomine', [true]);
    await engine.stop();
  }
  const sends = (await db('sends').where({ workflow: 'burst' }).select('tx_hash', 'outcome')) as { tx_hash: string; outcome: string }[];
  const nonces: number[] = [];
  let landed = 0;
  for (const s of sends) {
    const tx = await anvil.rpc<{ nonce: string }>('eth_getTransactionByHash', [s.tx_hash]);
    const receipt = await anvil.rpc<{ status: string } | null>('eth_getTransactionReceipt', [s.tx_hash]);
    if (receipt?.status === '0x1') landed++;
    nonces.push(Number(tx.nonce));
  }
  nonces.sort((a, b) => a - b);
  const consecutive = nonces.length === count && nonces.every((n, i) => n === first + i);
  const failed = Number(((await db('runs').where({ workflow: 'burst' }).whereNot({ status: 'succeeded' }).count({ n: '*' })) as { n: number }[])[0]!.n);
  const figures = { sends: ids.length, seconds, landed, consecutive, nonceErrors: metrics.resyncs - resyncsBefore, failed, oneInFlightRps, allInFlightRps };
  log(`sends: ${count} at once from one relayer, automine off: provider requests/s with 1 in flight ${oneInFlightRps.toFixed(2)}, with ${count} in flight ${allInFlightRps.toFixed(2)}; after one block ${landed} landed (${seconds.toFixed(2)} s in all), nonces consecutive: ${consecutive}, nonce errors: ${figures.nonceErrors}, failed runs: ${failed}`);
  return figures;
}

function spawnServer(dir: string, repo: string, port: number, anvil: Anvil): ChildProcess {
  return spawn(process.execPath, [join(repo, 'bin', 'run.js'), 'start', '--port', String(port), '--config', join(dir, 'chainflow.yaml')], {
    cwd: dir, env: { ...process.env, ...envOf(anvil), CHAINFLOW_LOG_LEVEL: 'error' }, stdio: ['ignore', 2, 'inherit'],
  }); // its log (JSON lines on its stdout) beside the bench's progress on stderr, out of the report
}

async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await exit;
}

interface Page<T> { items: T[]; cursor: string | null; has_more: boolean }

/** Every item of a history list, page after page (500 a page). */
export async function all<T>(base: string, path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const res = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}limit=500${cursor ? `&cursor=${cursor}` : ''}`);
    const page = (await res.json()) as Page<T>;
    out.push(...page.items);
    cursor = page.has_more ? page.cursor : null;
  } while (cursor);
  return out;
}

async function crash(dir: string, repo: string, anvil: Anvil, kills: number, perRound: number, log: Log): Promise<SendFigures['crash']> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const balanceOf = async (a: string): Promise<bigint> => BigInt(await anvil.rpc<string>('eth_getBalance', [a, 'latest']));
  const before = await balanceOf(CRASH_RELAYER.address);
  const recipients = new Map<string, bigint>();
  const acknowledged: string[] = [];
  const t = nowMs();
  for (let k = 0; k < kills; k++) {
    const child = spawnServer(dir, repo, port, anvil);
    await waitLive(port);
    const posts = Array.from({ length: perRound }, async () => {
      const to = `0x${[...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
      const amount = 1_000_000n + BigInt(recipients.size);
      recipients.set(to, amount);
      try {
        const res = await fetch(`${base}/api/workflows/payouts/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: { to, amount: amount.toString() } }) });
        if (res.status === 202) acknowledged.push(((await res.json()) as { run_id: string }).run_id);
      } catch {
        // killed mid-request: the run may or may not exist; both are checked below
      }
    });
    // A random moment within the work: before, during or after the sends of this round.
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 600));
    await killed(child);
    await Promise.allSettled(posts);
  }
  const child = spawnServer(dir, repo, port, anvil);
  await waitLive(port);
  try {
    for (let waited = 0; ; waited += 250) {
      const open = await all<{ status: string }>(base, '/api/history/runs?workflow=payouts&status=running');
      const waiting = await all<{ status: string }>(base, '/api/history/runs?workflow=payouts&status=waiting');
      const inFlight = await all<{ status: string }>(base, '/api/history/txs?workflow=payouts&status=submitted');
      if (!open.length && !waiting.length && !inFlight.length) break;
      if (waited > 180_000) throw new Error(`crash: ${open.length + waiting.length} runs and ${inFlight.length} sends still open after 3 minutes`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const runs = await all<{ run_id: string; status: string }>(base, '/api/history/runs?workflow=payouts');
    const sends = await all<{ run_id: string; to: string; value_wei: string; outcome: string | null; tx_hash: string | null }>(base, '/api/history/txs?workflow=payouts');
    let doublePayments = 0;
    let lostSends = 0;
    let valueMoved = 0n;
    for (const [to, amount] of recipients) {
      const got = await balanceOf(to);
      valueMoved += got;
      const confirmed = sends.filter((s) => s.to.toLowerCase() === to && s.outcome === 'confirmed');
      if (got > amount || confirmed.length > 1) doublePayments++;
      if (got === amount && confirmed.length === 0) lostSends++;
      if (got === 0n && confirmed.length > 0) lostSends++;
    }
    const byId = new Map(runs.map((r) => [r.run_id, r.status]));
    for (const id of acknowledged) if (byId.get(id) !== 'succeeded') lostSends++;
    const spend = (await (await fetch(`${base}/api/spend?relayer=crash&limit=0`)).json()) as { summary: { total: { gas_spend_wei: string; value_wei: string } } };
    const gas = BigInt(spend.summary.total.gas_spend_wei);
    const value = BigInt(spend.summary.total.value_wei);
    const change = before - (await balanceOf(CRASH_RELAYER.address));
    const figures = {
      kills, acknowledged: acknowledged.length, runs: runs.length, succeeded: runs.filter((r) => r.status === 'succeeded').length, doublePayments, lostSends,
      ledgerGasWei: gas, ledgerValueWei: value, balanceChangeWei: change, valueMovedWei: valueMoved, ledgerEqual: gas === change - valueMoved && value === valueMoved,
      seconds: (nowMs() - t) / 1000,
    };
    log(`sends: kill -9 ×${kills}: ${figures.runs} runs (${figures.acknowledged} acknowledged), ${figures.succeeded} succeeded; double payments ${doublePayments}, lost sends ${lostSends}; ledger gas ${gas} vs balance change - value ${change - valueMoved}: ${figures.ledgerEqual ? 'equal' : 'DIFFERENT'}`);
    return figures;
  } finally {
    await killed(child);
  }
}

export async function benchSends(opts: { work: string; repo: string; log: Log }): Promise<SendFigures> {
  const dir = join(opts.work, 'sends');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chainflow.yaml'), config());
  const anvil = await startAnvil();
  const proxy = await startRpcProxy(anvil.url);
  try {
    const spent = { ms: 0 };
    const metrics = new Counting();
    const root = await openBench(dir, anvil, proxy, spent, metrics);
    let o: { overhead: Stats; chain: Stats; run: Stats };
    let b: SendFigures['burst'];
    try {
      o = await overhead(root, spent, Number(process.env.BENCH_SEND_RUNS ?? 200), opts.log);
      b = await burst(root, anvil, proxy, metrics, 200, opts.log);
    } finally {
      await root.close();
    }
    const c = await crash(dir, opts.repo, anvil, Number(process.env.BENCH_KILLS ?? 20), 6, opts.log);
    const faults = await benchSendFaults({ work: opts.work, anvil, payouts: Number(process.env.BENCH_FAULT_PAYOUTS ?? 100), overheadRuns: Number(process.env.BENCH_SEND_RUNS ?? 200), log: opts.log });
    return { overhead: o.overhead, chain: o.chain, run: o.run, burst: b, crash: c, faults };
  } finally {
    await proxy.stop();
    await anvil.stop();
  }
}

export function renderSends(f: SendFigures): { text: string; pass: boolean } {
  const overheadOk = f.overhead.p50 <= 5;
  const burstOk = f.burst.consecutive && f.burst.landed === f.burst.sends && f.burst.nonceErrors === 0 && f.burst.failed === 0
    && f.burst.allInFlightRps <= 2 * f.burst.oneInFlightRps;
  const crashOk = f.crash.doublePayments === 0 && f.crash.lostSends === 0 && f.crash.ledgerEqual;
  const verdict = (ok: boolean): string => (ok ? 'met' : '**missed**');
  const faults = renderSendFaults(f.faults);
  const text = [
    '## Sends (anvil)', '',
    `- Send step overhead beyond the chain's answers (simulate, budget, nonce, sign, journal, broadcast): p50 **${f.overhead.p50.toFixed(2)} ms**, p99 ${f.overhead.p99.toFixed(2)} ms over ${f.overhead.n} sends (the chain's answers: p50 ${f.chain.p50.toFixed(2)} ms) — target p50 ≤ 5 ms: ${verdict(overheadOk)}`,
    `- For context, a whole one-step send run (start, step, settle, end: all of its journal writes) beyond the chain's answers: p50 ${f.run.p50.toFixed(2)} ms, p99 ${f.run.p99.toFixed(2)} ms`,
    `- ${f.burst.sends} sends of one relayer in flight at once (automine off): **${f.burst.allInFlightRps.toFixed(2)}** provider requests/s against ${f.burst.oneInFlightRps.toFixed(2)} with one in flight (target ≤ 2×); after one block ${f.burst.landed} landed (${f.burst.seconds.toFixed(2)} s in all), nonces consecutive: ${f.burst.consecutive ? 'yes' : 'no'}, nonce errors: ${f.burst.nonceErrors}, failed runs: ${f.burst.failed} — ${verdict(burstOk)}`,
    `- kill -9 at ${f.crash.kills} random moments of a run of payouts, restarted each time (${f.crash.runs} runs, ${f.crash.acknowledged} acknowledged, ${f.crash.succeeded} succeeded, ${f.crash.seconds.toFixed(0)} s): double payments **${f.crash.doublePayments}**, lost sends **${f.crash.lostSends}**; ledger gas ${f.crash.ledgerGasWei} wei, relayer balance change ${f.crash.balanceChangeWei} wei, value moved ${f.crash.valueMovedWei} wei (ledger value ${f.crash.ledgerValueWei}): ledger = change − value to the wei: ${f.crash.ledgerEqual ? 'yes' : 'no'} — ${verdict(crashOk)}`,
    faults.text,
    '',
  ].join('\n');
  return { text, pass: overheadOk && burstOk && crashOk && faults.pass };
}
