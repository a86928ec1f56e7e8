/**
 * `npm run bench -- --events`, the replay figure (issue #28): a replay session of 1,000 logs over 1,000 blocks on a
 * real anvil node (a contract emitting one `Tick(uint256)` log per call, each call mined in a block of its own). The
 * workflow's one step is a send of relayer `ops`: in the replay it is simulated at each log's block and never
 * broadcast. Measured: seconds from the replay's request (ReplayEvents, as `POST /api/workflows/:wf/replays` calls
 * it) to its `session.finished`, with this process's engine driving the runs on a fresh SQLite file; and the
 * broadcasts, counted on chain as the transactions the relayer sent (its nonce before and after).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { web3 } from '../src/adapters/chain/web3-module';
import { Database } from '../src/adapters/knex/knex-journal.writer';
import { Engine } from '../src/application/engine/engine';
import { ReplayEvents } from '../src/application/engine/replay-events.use-case';
import { openRoot } from '../src/bin/root';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../test/support/anvil';
import { nowMs } from './timing';

type Log = (msg: string) => void;

const LOGS = 1_000;
const TARGET_SECONDS = 30;
const EMITTER = '0x00000000000000000000000000000000000e0e02';
const SINK = '0x00000000000000000000000000000000000e0e03';
const OPS = ANVIL_ACCOUNTS[5]!;

export interface ReplayFigures {
  readonly logs: number;
  readonly runs: number;
  readonly seconds: number;
  readonly broadcasts: number;
}

/** Runtime code that emits one `Tick(0)` log (LOG1: topic 0, 32 bytes of zero data) per call, whatever the call. */
function tickCode(): string {
  const topic = String(web3().eth.abi.encodeEventSignature('Tick(uint256)')).slice(2);
  return `0x7f${topic}60206000a100`;
}

/** LOGS calls to the emitter, each mined in its own block; the blocks they span. */
async function emitTicks(anvil: Anvil, log: Log): Promise<{ from: number; to: number }> {
  await anvil.setCode(EMITTER, tickCode());
  const sender = ANVIL_ACCOUNTS[0]!.address;
  const nonce = async (): Promise<number> => Number(await anvil.rpc<string>('eth_getTransactionCount', [sender, 'latest']));
  const first = await nonce();
  const from = Number(await anvil.rpc<string>('eth_blockNumber')) + 1;
  const t = nowMs();
  for (let i = 0; i < LOGS; i++) await anvil.rpc('eth_sendTransaction', [{ from: sender, to: EMITTER, gas: '0x30000' }]);
  while ((await nonce()) < first + LOGS) await new Promise((r) => setTimeout(r, 20));
  const to = Number(await anvil.rpc<string>('eth_blockNumber'));
  // An empty head above them: the live trigger (from_block: latest) starts at the head, and so starts no run of its
  // own that would broadcast and be counted.
  await anvil.rpc('anvil_mine', ['0x1']);
  log(`events replay: ${LOGS} logs emitted over blocks ${from}..${to} in ${((nowMs() - t) / 1000).toFixed(1)} s`);
  return { from, to };
}

export async function benchEventsReplay(options: { work: string; log: Log }): Promise<ReplayFigures> {
  const anvil = await startAnvil();
  const dir = join(options.work, 'events-replay');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const { from, to } = await emitTicks(anvil, options.log);
    const configPath = join(dir, 'chainflow.yaml');
    writeFileSync(configPath, [
      'chainflow_version: 1', 'storage:\n  url: sqlite:replay.db', 'secrets:\n  ops_key: { env: BENCH_OPS_KEY }',
      'networks:', '  anvil: { chain_id: 31337, rpc: [ { env: BENCH_EVENTS_RPC } ], poll_interval: 1s }',
      'relayers:\n  ops: { network: anvil, signer: { secret: ops_key } }',
      'workflows:', '  ticks:',
      `    trigger: { kind: event, network: anvil, address: "${EMITTER}", event: "Tick(uint256 value)" }`,
      `    steps: [ { id: pay, type: send, relayer: ops, to: "${SINK}", value: "1" } ]`, '',
    ].join('\n'));
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const root = await openRoot({
      cwd: dir, configPath, env: { ...process.env, BENCH_EVENTS_RPC: anvil.url, BENCH_OPS_KEY: OPS.privateKey }, profile: 'server', logger: quiet,
    });
    const engine = root.container.get(Engine);
    const db = root.container.get<Knex>(Database);
    const sent = async (): Promise<number> => Number(await anvil.rpc<string>('eth_getTransactionCount', [OPS.address, 'latest']));
    try {
      engine.start();
      const before = await sent();
      const t = nowMs();
      const started = await root.container.get(ReplayEvents).execute({ workflow: 'ticks', fromBlock: from, toBlock: to });
      engine.poke();
      for (;;) {
        const row = (await db('sessions').where({ session_id: started.session_id }).first()) as { finished_at: unknown } | undefined;
        if (row?.finished_at !== null && row?.finished_at !== undefined) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const seconds = (nowMs() - t) / 1000;
      const [{ n }] = (await db.raw("SELECT count(*) AS n FROM runs WHERE session_id = ? AND status = 'succeeded'", [started.session_id])) as { n: number }[];
      const figures = { logs: started.run_count, runs: Number(n), seconds, broadcasts: (await sent()) - before };
      options.log(`events replay: ${figures.runs}/${figures.logs} runs succeeded, session finished in ${seconds.toFixed(2)} s, ${figures.broadcasts} broadcasts`);
      return figures;
    } finally {
      await engine.stop();
      await root.close();
    }
  } finally {
    await anvil.stop();
  }
}

export function renderEventsReplay(f: ReplayFigures): { text: string; pass: boolean } {
  const pass = f.seconds <= TARGET_SECONDS && f.broadcasts === 0 && f.runs === LOGS && f.logs === LOGS;
  const text = [
    `## Replay of ${LOGS} logs over ${LOGS} blocks (anvil, SQLite, one simulated send per run)`, '',
    '| logs | runs succeeded | seconds to session.finished | broadcasts (relayer txs on chain) |', '|---|---|---|---|',
    `| ${f.logs} | ${f.runs} | ${f.seconds.toFixed(2)} | ${f.broadcasts} |`, '',
    `${pass ? 'PASS' : 'FAIL'} at most ${TARGET_SECONDS} s to session.finished, 0 broadcasts`, '',
  ].join('\n');
  return { text, pass };
}
