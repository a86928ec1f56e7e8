/**
 * The relayers' figures (issue 12): `GET /api/relayers` with 50 relayers on a real anvil node, balances cached,
 * against `GET /live` in the same run and over the same connection; then the same 50 relayers on a network whose
 * every provider is down (one refuses connections, two accept and never answer), with the cache off so that each
 * request reads again: each must answer within the read bound plus 100 ms; and `GET /metrics` meanwhile.
 * Its own SQLite file (`.bench/relayers.db`, rebuilt each run) with a week of ledger entries for the funding plan.
 */
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { Web3Chain } from '../src/adapters/chain/web3-chain';
import { SpendLedger } from '../src/application/ports/spend-ledger';
import { DEFAULT_BALANCE_READ_MS, RelayerReadOptions } from '../src/application/relayers/relayer-balances';
import { openRoot, type Root } from '../src/bin/root';
import { startServer } from '../src/bin/server';
import type { LedgerEntry } from '../src/domain/spend/ledger-entry';
import { refusingUrl, startAnvil, startSilentServer, type Anvil, type SilentServer } from '../test/support/anvil';
import { HttpClient, nowMs, stats, type Stats } from './timing';

const RELAYERS = 50;
const ENTRIES_PER_RELAYER = 200;
const DOWN_SAMPLES = 5;
const RATIO_TARGET = 3;
const DOWN_SLACK_MS = 100;
const DAY = 86_400_000;
const ETHER = 10n ** 18n;

export interface RelayersFigures {
  readonly relayers: number;
  readonly entries: number;
  readonly coldMs: number;
  readonly live: Stats;
  readonly cached: Stats;
  readonly readBoundMs: number;
  readonly down: Stats;
  readonly metrics: Stats;
  readonly metricsDown: Stats;
}

/** Relayer i's key: a fixed 32-byte scalar (far below the curve order), so every run funds the same addresses. */
const keyOf = (i: number): string => `0x${createHash('sha256').update(`chainflow-bench-relayer-${i}`).digest('hex')}`;
const nameOf = (i: number): string => `relayer-${String(i).padStart(2, '0')}`;

function writeConfig(path: string, dbName: string, network: string, rpcEnv: readonly string[]): void {
  writeFileSync(path, [
    'chainflow_version: 1', `storage:\n  url: sqlite:${dbName}`, 'server:\n  metrics_public: true',
    'networks:', `  ${network}: { chain_id: 31337, rpc: [${rpcEnv.map((e) => `{ env: ${e} }`).join(', ')}] }`,
    'relayers:', ...Array.from({ length: RELAYERS }, (_, i) =>
      `  ${nameOf(i)}: { network: ${network}, signer: { env: KEY_${i} }${i % 2 ? ', low_balance: 5 ether' : ''} }`),
    '',
  ].join('\n'));
}

async function serve(root: Root, logFile: string): Promise<{ server: Server; http: HttpClient }> {
  const server = await startServer(root, { port: 0, host: '127.0.0.1', engine: false, logger: pino({ level: 'info', base: undefined }, pino.destination({ dest: logFile, sync: true })) });
  return { server, http: new HttpClient((server.address() as AddressInfo).port) };
}

async function stop(server: Server | undefined, http: HttpClient | undefined, root: Root | undefined): Promise<void> {
  http?.close();
  if (server) {
    await new Promise<void>((res) => {
      server.close(() => res());
      server.closeAllConnections();
    });
  }
  await root?.close();
}

/** A week of gas spend per relayer (one send every ~50 minutes), so that the funding plan reads real rollups and edges. */
function ledgerOf(now: number): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  for (let r = 0; r < RELAYERS; r++) {
    for (let k = 0; k < ENTRIES_PER_RELAYER; k++) {
      const gasUsed = 21_000n + BigInt((r * 7919 + k * 104_729) % 300_000);
      const price = 1_000_000_000n + BigInt((r * 31 + k) % 50) * 100_000_000n;
      entries.push({
        recordedAt: now - 7 * DAY + 60_000 + Math.floor((k / ENTRIES_PER_RELAYER) * (7 * DAY - 120_000)), workflow: `workflow-${r % 7}`,
        runId: `bench-${r}-${k}`, stepRunId: `bench-${r}-${k}.send`, relayer: nameOf(r), network: 'anvil', chainId: 31337,
        txHash: `0x${createHash('sha256').update(`${r}:${k}`).digest('hex')}`, gasUsed, effectiveGasPrice: price, gasSpendWei: gasUsed * price,
        valueWei: 0n, reverted: k % 25 === 0,
      });
    }
  }
  return entries;
}

export async function benchRelayers(options: { work: string; iterations: number; warmup: number; log: (m: string) => void }): Promise<RelayersFigures> {
  const { work, log } = options;
  const keys = Array.from({ length: RELAYERS }, (_, i) => keyOf(i));
  const keyEnv = Object.fromEntries(keys.map((k, i) => [`KEY_${i}`, k]));
  let anvil: Anvil | undefined;
  let silent: SilentServer | undefined;
  let root: Root | undefined;
  let server: Server | undefined;
  let http: HttpClient | undefined;
  try {
    [anvil, silent] = await Promise.all([startAnvil(), startSilentServer()]);
    const chain = new Web3Chain();
    const addresses = keys.map((k) => chain.address(k));
    await Promise.all(addresses.map((a, i) => anvil!.setBalance(a, BigInt(i + 1) * ETHER / 4n)));

    // 1. Balances cached: GET /api/relayers against GET /live, same server, same connection, same run.
    const dbName = 'relayers.db';
    for (const suffix of ['', '-wal', '-shm']) rmSync(join(work, dbName) + suffix, { force: true });
    const livePath = join(work, 'relayers.yaml');
    writeConfig(livePath, dbName, 'anvil', ['RPC']);
    root = await openRoot({ cwd: work, configPath: livePath, profile: 'server', env: { ...process.env, RPC: anvil.url, ...keyEnv } });
    const entries = ledgerOf(Date.now());
    const ledger = root.container.get<SpendLedger>(SpendLedger);
    for (let i = 0; i < entries.length; i += 500) await ledger.append(entries.slice(i, i + 500));
    ({ server, http } = await serve(root, join(work, 'relayers-server.log')));
    const client = http;
    let t = nowMs();
    const first = JSON.parse(await client.getOk('/api/relayers')) as { items: { address: string; balance_wei: string | null; recent_gas_spend_wei: string }[] };
    const coldMs = nowMs() - t;
    if (first.items.length !== RELAYERS) throw new Error(`GET /api/relayers listed ${first.items.length} relayers, expected ${RELAYERS}`);
    for (const [i, item] of first.items.entries()) {
      if (item.balance_wei !== (BigInt(i + 1) * ETHER / 4n).toString()) throw new Error(`${nameOf(i)}: balance ${item.balance_wei}, expected ${BigInt(i + 1) * ETHER / 4n}`);
      if (item.recent_gas_spend_wei === '0') throw new Error(`${nameOf(i)}: no recent gas spend`);
    }
    log(`relayers: first GET /api/relayers (50 balances read from anvil) ${coldMs.toFixed(1)} ms`);
    // Interleaved, one request of each in turn, so that both figures see the same machine load.
    const timed = async (path: string): Promise<number> => {
      const start = nowMs();
      await client.getOk(path);
      return nowMs() - start;
    };
    for (let k = 0; k < options.warmup; k++) {
      await timed('/live');
      await timed('/api/relayers');
    }
    const liveSamples: number[] = [];
    const cachedSamples: number[] = [];
    for (let k = 0; k < options.iterations; k++) {
      liveSamples.push(await timed('/live'));
      cachedSamples.push(await timed('/api/relayers'));
    }
    const live = stats(liveSamples);
    const cached = stats(cachedSamples);
    const metricsSamples: number[] = [];
    for (let k = 0; k < 20; k++) metricsSamples.push(await timed('/metrics'));
    const metrics = stats(metricsSamples);
    log(`relayers: GET /live p50 ${live.p50.toFixed(3)} ms; GET /api/relayers (cached) p50 ${cached.p50.toFixed(3)} ms p99 ${cached.p99.toFixed(3)} ms; GET /metrics p50 ${metrics.p50.toFixed(2)} ms`);
    await stop(server, http, root);
    server = undefined;
    http = undefined;
    root = undefined;

    // 2. Every provider down, nothing cached: each request reads all 50 balances again and must answer within the bound.
    const downPath = join(work, 'relayers-down.yaml');
    writeConfig(downPath, dbName, 'anvil', ['REFUSED', 'HANGING', 'HANGING']);
    root = await openRoot({ cwd: work, configPath: downPath, profile: 'server', env: { ...process.env, REFUSED: await refusingUrl(), HANGING: silent.url, ...keyEnv } });
    root.container.bind(RelayerReadOptions).toConstantValue({ cacheTtlMs: 0 });
    ({ server, http } = await serve(root, join(work, 'relayers-down-server.log')));
    const downClient = http;
    const downSamples: number[] = [];
    const downMetrics: number[] = [];
    for (let k = 0; k < DOWN_SAMPLES; k++) {
      t = nowMs();
      const page = JSON.parse(await downClient.getOk('/api/relayers')) as { items: { balance_error: string | null }[] };
      downSamples.push(nowMs() - t);
      if (page.items.length !== RELAYERS || page.items.some((r) => r.balance_error === null)) throw new Error('with every provider down, every row must carry balance_error');
      t = nowMs();
      await downClient.getOk('/metrics');
      downMetrics.push(nowMs() - t);
      // Let the reads that outlived the bound end, so that the next request starts from nothing in flight.
      await new Promise((r) => setTimeout(r, DEFAULT_BALANCE_READ_MS));
    }
    const down = stats(downSamples);
    const metricsDown = stats(downMetrics);
    log(`relayers: every provider down: GET /api/relayers max ${down.max.toFixed(0)} ms (bound ${DEFAULT_BALANCE_READ_MS} ms); GET /metrics max ${metricsDown.max.toFixed(1)} ms`);
    return { relayers: RELAYERS, entries: entries.length, coldMs, live, cached, readBoundMs: DEFAULT_BALANCE_READ_MS, down, metrics, metricsDown };
  } finally {
    await stop(server, http, root);
    await silent?.close();
    await anvil?.stop();
  }
}

export function renderRelayers(f: RelayersFigures): { text: string; pass: boolean } {
  const ok = (b: boolean): string => (b ? 'met' : '**missed**');
  const ratio = f.cached.p50 / f.live.p50;
  const downOk = f.down.max <= f.readBoundMs + DOWN_SLACK_MS;
  const lines = [
    `## Relayers (${f.relayers} relayers on anvil, ${f.entries.toLocaleString('en-US')} ledger entries over the last 7 days)`, '',
    `- \`GET /api/relayers\`, balances cached: p50 **${f.cached.p50.toFixed(3)} ms** (p99 ${f.cached.p99.toFixed(3)} ms) against \`GET /live\` p50 ${f.live.p50.toFixed(3)} ms in the same run: **${ratio.toFixed(2)}×** — target ≤ ${RATIO_TARGET}×: ${ok(ratio <= RATIO_TARGET)}`,
    `- First \`GET /api/relayers\` (every balance read from anvil, the funding plan from the ledger): ${f.coldMs.toFixed(1)} ms`,
    `- Every provider down (one refuses, two never answer), nothing cached: max **${f.down.max.toFixed(0)} ms** over ${f.down.n} requests (p50 ${f.down.p50.toFixed(0)} ms) — target ≤ read bound ${f.readBoundMs} ms + ${DOWN_SLACK_MS} ms: ${ok(downOk)}`,
    `- \`GET /metrics\` (relayer gauges from cached balances, never waiting on a chain): p50 ${f.metrics.p50.toFixed(2)} ms with balances cached; max ${f.metricsDown.max.toFixed(1)} ms with every provider down and the cache off (each scrape starts ${f.relayers} background reads)`, '',
  ];
  return { text: lines.join('\n'), pass: ratio <= RATIO_TARGET && downOk };
}
