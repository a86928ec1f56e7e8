/**
 * `npm run bench -- --events` (issue #28): the event trigger's backfill on a real anvil node. 10,000 logs over about
 * 2,000 blocks (a contract that emits five `Tick(uint256)` logs per call, 2,000 calls each mined at once), read by the log poller of
 * CONTRACT 8.6 from `from_block` to the head into a fresh SQLite file: logs per second until every run is recorded
 * (enqueued with its log's key, in the cursor's transaction), duplicates and missed logs. Then the same through a
 * proxy that refuses eth_getLogs over 100 blocks (in Alchemy's words), so that the poller halves its range.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { web3 } from '../src/adapters/chain/web3-module';
import { PollEventLogs } from '../src/application/engine/poll-event-logs.use-case';
import { EventCursors } from '../src/application/ports/event-cursors';
import { openRoot } from '../src/bin/root';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../test/support/anvil';
import { refuseWideLogRanges, startRpcProxy } from '../test/support/rpc-proxy';
import { nowMs } from './timing';

type Log = (msg: string) => void;

const BLOCKS = 2_000;
const LOGS_PER_BLOCK = 5;
const REFUSE_OVER = 100;
const TARGET_LOGS_PER_S = 1_000;
const EMITTER = '0x00000000000000000000000000000000000e0e01';
const EVENT = 'Tick(uint256 value)';

export interface BackfillFigures {
  readonly name: string;
  readonly logs: number;
  readonly seconds: number;
  readonly logsPerSecond: number;
  readonly duplicates: number;
  readonly missed: number;
  readonly getLogs: number;
}

/** Runtime code that emits LOGS_PER_BLOCK `Tick(i)` logs (LOG1: topic 0, 32 bytes of data) per call, whatever the call. */
function emitterCode(): string {
  const topic = String(web3().eth.abi.encodeEventSignature('Tick(uint256)')).slice(2);
  let code = '';
  for (let i = 0; i < LOGS_PER_BLOCK; i++) {
    // PUSH1 i PUSH1 0 MSTORE; PUSH32 topic PUSH1 32 PUSH1 0 LOG1
    code += `60${i.toString(16).padStart(2, '0')}600052` + `7f${topic}` + '60206000a1';
  }
  return `0x${code}00`;
}

async function emitLogs(anvil: Anvil, log: Log): Promise<{ from: number; to: number }> {
  await anvil.setCode(EMITTER, emitterCode());
  const from = Number(await anvil.rpc<string>('eth_blockNumber')) + 1;
  const t = nowMs();
  const sender = ANVIL_ACCOUNTS[0]!.address;
  const nonce = async (): Promise<number> => Number(await anvil.rpc<string>('eth_getTransactionCount', [sender, 'latest']));
  const first = await nonce();
  // One at a time: automine makes each call its own block (anvil loses track of nonces sent out of order).
  for (let i = 0; i < BLOCKS; i++) await anvil.rpc('eth_sendTransaction', [{ from: sender, to: EMITTER, gas: '0x30000' }]);
  // Automine answers before the block is sealed at times: the head is read once every call has landed.
  while ((await nonce()) < first + BLOCKS) await new Promise((r) => setTimeout(r, 20));
  const to = Number(await anvil.rpc<string>('eth_blockNumber'));
  log(`events: ${BLOCKS * LOGS_PER_BLOCK} logs emitted over blocks ${from}..${to} in ${((nowMs() - t) / 1000).toFixed(1)} s`);
  return { from, to };
}

/** One backfill into a fresh database: the poller run until its cursor passed the head. */
async function backfill(work: string, name: string, rpc: string, from: number, expected: number, log: Log, count: () => number): Promise<BackfillFigures> {
  const dir = join(work, `events-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'chainflow.yaml');
  writeFileSync(configPath, [
    'chainflow_version: 1', 'storage:\n  url: sqlite:events.db',
    'networks:', '  anvil: { chain_id: 31337, rpc: [ { env: BENCH_EVENTS_RPC } ], poll_interval: 1s }',
    'workflows:', '  ticks:',
    `    trigger: { kind: event, network: anvil, address: "${EMITTER}", event: "${EVENT}", from_block: ${from} }`,
    '    steps: [ { id: note, type: delay, duration: 1s } ]', '',
  ].join('\n'));
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const root = await openRoot({ cwd: dir, configPath, env: { ...process.env, BENCH_EVENTS_RPC: rpc }, profile: 'server', logger: quiet });
  try {
    const poller = root.container.get(PollEventLogs);
    const cursors = root.container.get<EventCursors>(EventCursors);
    const before = count();
    const t = nowMs();
    await poller.execute();
    const seconds = (nowMs() - t) / 1000;
    const runs = await cursors.logRunsFrom('anvil', 0n);
    const unique = new Set(runs.map((r) => `${r.blockHash}:${r.logIndex}`)).size;
    const figures = {
      name, logs: runs.length, seconds, logsPerSecond: runs.length / seconds, duplicates: runs.length - unique,
      missed: Math.max(0, expected - unique), getLogs: count() - before,
    };
    log(`events ${name}: ${figures.logs} runs recorded in ${seconds.toFixed(2)} s (${figures.logsPerSecond.toFixed(0)} logs/s), ` +
      `${figures.duplicates} duplicates, ${figures.missed} missed, ${figures.getLogs} eth_getLogs`);
    return figures;
  } finally {
    await root.close();
  }
}

export async function benchEvents(options: { work: string; log: Log }): Promise<BackfillFigures[]> {
  const anvil = await startAnvil();
  const proxy = await startRpcProxy(anvil.url);
  try {
    const { from } = await emitLogs(anvil, options.log);
    const expected = BLOCKS * LOGS_PER_BLOCK;
    const getLogs = (): number => proxy.counts.get('eth_getLogs') ?? 0;
    const plain = await backfill(options.work, 'backfill', proxy.url, from, expected, options.log, getLogs);
    proxy.setPolicy(refuseWideLogRanges(REFUSE_OVER));
    const refused = await backfill(options.work, `refused-over-${REFUSE_OVER}`, proxy.url, from, expected, options.log, getLogs);
    return [plain, refused];
  } finally {
    await proxy.stop();
    await anvil.stop();
  }
}

export function renderEvents(figures: readonly BackfillFigures[]): { text: string; pass: boolean } {
  const lines = [
    `# chainflow bench: the event trigger's backfill (${BLOCKS * LOGS_PER_BLOCK} logs over ${BLOCKS} blocks, anvil)`, '',
    '| case | runs recorded | seconds | logs/s | duplicates | missed | eth_getLogs |', '|---|---|---|---|---|---|---|',
  ];
  let pass = true;
  for (const f of figures) {
    lines.push(`| ${f.name} | ${f.logs} | ${f.seconds.toFixed(2)} | ${f.logsPerSecond.toFixed(0)} | ${f.duplicates} | ${f.missed} | ${f.getLogs} |`);
    pass &&= f.logsPerSecond >= TARGET_LOGS_PER_S && f.duplicates === 0 && f.missed === 0;
  }
  lines.push('', `${pass ? 'PASS' : 'FAIL'} at least ${TARGET_LOGS_PER_S} logs/s to runs recorded, 0 duplicates, 0 missed, in both cases`, '');
  return { text: lines.join('\n'), pass };
}
