/**
 * `npm run bench -- --sends`, the faults case (issue #27): payouts driven in this process through a fault-injecting
 * proxy in front of anvil that answers 20% of requests 503 and 10% rate-limited (-32005). Every payout must be paid
 * exactly once (each recipient's balance), every send settled confirmed (none falsely replaced or dropped), the
 * spend ledger equal to the chain to the wei, and the send step's overhead beyond the chain's answers (retries and
 * their pauses are the chain's time) still p50 ≤ 5 ms.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { Engine } from '../src/application/engine/engine';
import { ChainReader, ChainSender } from '../src/application/ports/chain';
import { JournalWriter } from '../src/application/ports/journal-writer';
import { SubmitSend } from '../src/application/sends/submit-send.use-case';
import { Web3Chain } from '../src/adapters/chain/web3-chain';
import { Database } from '../src/adapters/knex/knex-journal.writer';
import { openRoot } from '../src/bin/root';
import { ANVIL_ACCOUNTS, type Anvil } from '../test/support/anvil';
import { flakyProvider, startRpcProxy } from '../test/support/rpc-proxy';
import { nowMs, stats, timed, type Stats } from './timing';

type Log = (msg: string) => void;

export interface FaultFigures {
  readonly payouts: number;
  readonly succeeded: number;
  readonly paidOnce: number;
  readonly falseReplacedOrDropped: number;
  readonly ledgerEqual: boolean;
  readonly ledgerGasWei: bigint;
  readonly balanceChangeWei: bigint;
  readonly valueMovedWei: bigint;
  /** SubmitSend (simulate, budget, nonce, sign, journal, broadcast) minus the chain's answers, retries included in the latter. */
  readonly overhead: Stats;
  readonly chain: Stats;
  /** Sends of the overhead loop that did not get submitted, with why. */
  readonly overheadFailed: readonly string[];
  readonly faults: number;
  readonly requests: number;
  readonly seconds: number;
}

const RELAYER = ANVIL_ACCOUNTS[5]!;
const OVERHEAD_RECIPIENT = '0x00000000000000000000000000000000000FA017';

function config(): string {
  return `chainflow_version: 1
storage:
  url: sqlite:faults.db
engine:
  lease_ttl: 2s
  poll_interval: 1s
networks:
  anvil: { chain_id: 31337, rpc: [ { env: BENCH_RPC } ] }
relayers:
  faults: { network: anvil, signer: { env: BENCH_FAULTS_KEY } }
workflows:
  faults:
    trigger: { kind: manual }
    steps:
      - { id: pay, type: send, relayer: faults, to: "\${{ trigger.payload.to }}", value: "\${{ trigger.payload.amount }}" }
`;
}

/** Adds the time of every chain call but the local ones (`sign`, `address`) to `spent.ms`. */

/**
 * The send step's overhead as bench/sends.ts measures it (SubmitSend called as the step calls it, its run journaled
 * first, 20 warm-up sends), under the same faults: each send's time minus its chain calls' (retries included).
 */
async function overhead(submit: SubmitSend, journal: JournalWriter, spent: { ms: number }, runs: number): Promise<{ over: number[]; chainMs: number[]; failed: string[] }> {
  const failed: string[] = [];
  const over: number[] = [];
  const chainMs: number[] = [];
  for (let i = 0; i < runs + 20; i++) {
    const runId = `faults-${i}-${Date.now().toString(36)}`;
    const at = new Date().toISOString();
    await journal.append([
      { type: 'run.started', at, run_id: runId, workflow: 'faults', session: 'live', trigger: { kind: 'manual', summary: 'bench' } },
      { type: 'step.started', at, run_id: runId, step_run_id: `${runId}.pay`, step_id: 'pay', step_type: 'send', attempt: 1 },
    ]);
    spent.ms = 0;
    const started = nowMs();
    const result = await submit.execute({
      runId, stepRunId: `${runId}.pay`, sendId: `${runId}.pay:1`, workflow: 'faults', session: 'live', relayer: 'faults', to: OVERHEAD_RECIPIENT,
      valueWei: 1n, data: '0x', idempotencyKey: runId, simulate: true, detached: true,
    });
    const elapsed = nowMs() - started;
    if (result.kind !== 'submitted') {
      failed.push(result.kind === 'failed' ? `${result.error.kind}: ${result.error.message}` : result.kind);
      continue;
    }
    if (i < 20) continue;
    over.push(elapsed - spent.ms);
    chainMs.push(spent.ms);
  }
  return { over, chainMs, failed };
}

export async function benchSendFaults(opts: { work: string; anvil: Anvil; payouts: number; overheadRuns: number; log: Log }): Promise<FaultFigures> {
  const dir = join(opts.work, 'sends-faults');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chainflow.yaml'), config());
  const proxy = await startRpcProxy(opts.anvil.url, flakyProvider({ http503: Number(process.env.BENCH_FAULT_503 ?? 0.2), rateLimited: Number(process.env.BENCH_FAULT_429 ?? 0.1), seed: 2727 }));
  const root = await openRoot({
    cwd: dir, configPath: join(dir, 'chainflow.yaml'), env: { BENCH_RPC: proxy.url, BENCH_FAULTS_KEY: RELAYER.privateKey }, profile: 'server',
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
  });
  try {
    const spent = { ms: 0 };
    const chain = timed(new Web3Chain(), spent);
    root.container.rebindSync(ChainReader).toConstantValue(chain);
    root.container.rebindSync(ChainSender).toConstantValue(chain);
    const engine = root.container.get(Engine);
    const db = root.container.get<Knex>(Database);
    const balanceOf = async (a: string): Promise<bigint> => BigInt(await opts.anvil.rpc<string>('eth_getBalance', [a, 'latest']));
    const before = await balanceOf(RELAYER.address);
    const recipients = new Map<string, bigint>();
    const t = nowMs();
    for (let i = 0; i < opts.payouts; i++) {
      const to = `0x${[...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
      const amount = 1_000_000n + BigInt(i);
      recipients.set(to, amount);
      await engine.runHere({ workflow: 'faults', trigger: { kind: 'manual', summary: 'bench', payload: { to, amount: amount.toString() } } });
    }
    const seconds = (nowMs() - t) / 1000;
    const runs = (await db('runs').where({ workflow: 'faults' }).select('status')) as { status: string }[];
    const sends = (await db('sends').where({ workflow: 'faults' }).select('outcome')) as { outcome: string | null }[];
    let paidOnce = 0;
    let valueMoved = 0n;
    for (const [to, amount] of recipients) {
      const got = await balanceOf(to);
      valueMoved += got;
      if (got === amount) paidOnce++;
    }
    const ledger = (await db('spend_entries').where({ workflow: 'faults' }).select('gas_spend_wei', 'value_wei')) as { gas_spend_wei: string; value_wei: string }[];
    const gas = ledger.reduce((s, e) => s + BigInt(e.gas_spend_wei), 0n);
    const value = ledger.reduce((s, e) => s + BigInt(e.value_wei), 0n);
    const change = before - (await balanceOf(RELAYER.address));
    // After the ledger check: these sends are broadcast but not awaited.
    const { over, chainMs, failed } = await overhead(root.container.get(SubmitSend), root.container.get<JournalWriter>(JournalWriter), spent, opts.overheadRuns);
    const figures: FaultFigures = {
      payouts: opts.payouts, succeeded: runs.filter((r) => r.status === 'succeeded').length, paidOnce,
      falseReplacedOrDropped: sends.filter((s) => s.outcome === 'replaced' || s.outcome === 'dropped').length,
      ledgerEqual: ledger.length === opts.payouts && value === valueMoved && gas === change - valueMoved,
      ledgerGasWei: gas, balanceChangeWei: change, valueMovedWei: valueMoved,
      overhead: stats(over), chain: stats(chainMs), overheadFailed: failed,
      faults: [...proxy.faults.values()].reduce((sum, n) => sum + n, 0), requests: proxy.total(), seconds,
    };
    opts.log(`sends under faults: ${figures.paidOnce}/${figures.payouts} paid exactly once, ${figures.succeeded} runs succeeded, false replaced/dropped ${figures.falseReplacedOrDropped}, ledger equal to the chain: ${figures.ledgerEqual}; step overhead p50 ${figures.overhead.p50.toFixed(2)} ms (chain p50 ${figures.chain.p50.toFixed(2)} ms); ${figures.faults} faults in ${figures.requests} requests`);
    return figures;
  } finally {
    await root.close();
    await proxy.stop();
  }
}

export function renderSendFaults(f: FaultFigures): { text: string; pass: boolean } {
  const pass = f.paidOnce === f.payouts && f.succeeded === f.payouts && f.falseReplacedOrDropped === 0 && f.ledgerEqual && f.overhead.p50 <= 5
    && f.overheadFailed.length === 0;
  const text = `- Under faults (a proxy answering 20% of requests 503 and 10% rate-limited: ${f.faults} of ${f.requests}), ${f.payouts} payouts in ${f.seconds.toFixed(1)} s: `
    + `paid exactly once **${f.paidOnce}**, succeeded ${f.succeeded}, falsely replaced or dropped **${f.falseReplacedOrDropped}**; ledger gas ${f.ledgerGasWei} wei, `
    + `relayer balance change ${f.balanceChangeWei} wei, value moved ${f.valueMovedWei} wei: ledger = change − value to the wei: ${f.ledgerEqual ? 'yes' : 'no'}; `
    + `send step overhead beyond the chain p50 **${f.overhead.p50.toFixed(2)} ms**, p99 ${f.overhead.p99.toFixed(2)} ms (the chain's answers, retries included: p50 ${f.chain.p50.toFixed(2)} ms; not submitted: ${f.overheadFailed.length ? f.overheadFailed.join(' | ') : 'none'}) — ${pass ? 'met' : '**missed**'}`;
  return { text, pass };
}
