/**
 * Replays end to end (issue #28 part 3, CONTRACT 8.6): a real anvil node, MiniToken compiled with solc, the real
 * `chainflow start`. Three mints to the relayer start three live runs (each parks on its approval, so nothing is
 * broadcast live); then the relayer's tokens leave it (a transfer it makes itself), so that a send of them would revert
 * at the head. A replay over the mints' blocks, through the API and through `chainflow replay`, runs one run per log
 * in chain order, each linked to its live run; its read answers the balance at the log's block and its send is
 * simulated there (it succeeds) and never broadcast: the relayer's nonce and balance stay, no ledger entry is
 * written, the live cursor stays, and the session is finished. Bad requests are refused naming the field.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt, chainflow, hasStackTrace } from '../support/cli';
import { e2eConfigHead } from '../support/e2e-config';
import { engineClient, type Json } from '../support/engine-client';
import { eventually, startProcessServer, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { compileContract } from '../support/solidity';

const API_TOKEN = 'api-token-3f6a0d92';
const DEPLOYER = ANVIL_ACCOUNTS[0]!;
const OPS = ANVIL_ACCOUNTS[4]!;
const HOLDER = '0x00000000000000000000000000000000000ca5e1';
const TRANSFER = 'Transfer(address indexed from, address indexed to, uint256 value)';

function config(token: string, fromBlock: number, storage: string): string {
  return `${e2eConfigHead(['ops_key: { env: OPS_KEY }'], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ], poll_interval: 1s }
relayers:
  ops: { network: anvil, signer: { secret: ops_key } }
workflows:
  deposits:
    trigger: { kind: event, network: anvil, address: "${token}", event: "${TRANSFER}", from_block: ${fromBlock} }
    steps:
      - id: balance
        type: read
        network: anvil
        to: "${token}"
        call: { function: "balanceOf(address) returns (uint256)", args: ["${OPS.address}"] }
      - { id: ok, type: approval, message: "pay out \${{ trigger.payload.value }}", expires: 1h }
      - id: pay
        type: send
        relayer: ops
        to: "${token}"
        call: { function: "transfer(address,uint256)", args: ["${HOLDER}", "\${{ trigger.payload.value }}"] }
  by_hand:
    trigger: { kind: manual }
    steps:
      - { id: wait, type: delay, duration: 1s }
`;
}

describe.each(E2E_STORAGES)('replays on a real chain, end to end, on %s', (_name, freshStorage) => {
  const abi = new Web3Abi();
  let anvil: Anvil;
  let dir: string;
  let server: ProcessServer;
  let token: string;
  let env: Record<string, string>;
  let database: FreshPostgres | undefined;
  /** The blocks of the three mints, in order. */
  const blocks: number[] = [];
  let live: Json[] = [];

  const client = engineClient(() => server.baseUrl, { token: API_TOKEN });
  const transact = async (tx: Record<string, string>, from = DEPLOYER.address): Promise<Json> => {
    const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from, gas: '0x1e8480', ...tx }]);
    return eventually(() => anvil.rpc<Json | null>('eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined), 10_000, 'receipt');
  };
  const runsOf = async (query: string): Promise<Json[]> => (await client.get(`/api/history/runs?${query}&limit=500`)).items;
  const timelineOf = async (runId: string): Promise<Json[]> => (await client.get(`/api/history/runs/${runId}/timeline`)).events;
  const relayerState = async (): Promise<[string, string, string]> => [
    await anvil.rpc<string>('eth_getTransactionCount', [OPS.address, 'latest']),
    await anvil.rpc<string>('eth_getBalance', [OPS.address, 'latest']),
    await anvil.rpc<string>('eth_call', [{ to: token, data: abi.encodeCall('balanceOf(address)', [OPS.address]) }, 'latest']),
  ];
  const cursorOf = async (): Promise<number> =>
    ((await client.get('/api/history/workflows?limit=500')).items as Json[]).find((w) => w.workflow === 'deposits')!.cursor_block;
  /** The replay session's item once it is finished. */
  const finished = (sessionId: string): Promise<Json> => eventually(async () => {
    const session = ((await client.get('/api/history/replays?workflow=deposits&limit=500')).items as Json[]).find((s) => s.session_id === sessionId);
    return session?.finished_at ? session : undefined;
  }, 60_000, `session ${sessionId} finished`);

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    token = String((await transact({ data: compileContract('MiniToken.sol', 'MiniToken') })).contractAddress).toLowerCase();
    dir = makeTempDir('chainflow-replays-');
    database = await freshStorage();
    const from = Number(await anvil.rpc<string>('eth_blockNumber')) + 1;
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(token, from, storageSection(database)));
    env = { API_TOKEN, RPC: anvil.url, OPS_KEY: OPS.privateKey };
    server = await startProcessServer(dir, env);
    for (const amount of [11n, 12n, 13n]) {
      blocks.push(Number((await transact({ to: token, data: abi.encodeCall('mint(address,uint256)', [OPS.address, amount.toString()]) })).blockNumber));
    }
    live = await eventually(async () => {
      const runs = await runsOf('workflow=deposits&session=live');
      return runs.length === 3 && runs.every((r) => r.status === 'waiting') ? runs : undefined;
    }, 30_000, 'three live runs parked on their approvals');
    // The relayer gives its tokens away itself: at the head, a transfer of any of them reverts ("balance too low").
    await transact({ to: token, data: abi.encodeCall('transfer(address,uint256)', [HOLDER, '36']) }, OPS.address);
  }, 90_000);
  afterAll(() => tearDownSuite({ server, stops: [anvil], database, dir }));

  /** Checks a finished replay of the three mints: its runs, their links, reads and simulated sends. */
  const checkReplay = async (sessionId: string): Promise<void> => {
    const session = await finished(sessionId);
    expect(session).toMatchObject({ kind: 'replay', workflow: 'deposits', run_count: 3, from_block: blocks[0], to_block: blocks[2] });
    const runs = (await runsOf(`session_id=${sessionId}`)).reverse();
    expect(runs.map((r) => [r.session, r.block, r.status])).toEqual(blocks.map((b) => ['replay', b, 'succeeded']));
    const liveByBlock = new Map(live.map((r) => [r.block, r.run_id]));
    expect(runs.map((r) => r.replay_of)).toEqual(blocks.map((b) => liveByBlock.get(b)));
    const balances: string[] = [];
    for (const run of runs) {
      const steps = (await timelineOf(run.run_id)).filter((e) => e.kind === 'step');
      balances.push(String(steps.find((s) => s.step_id === 'balance')!.output.result));
      expect(steps.find((s) => s.step_id === 'ok')!.output).toMatchObject({ decision: 'approved', by: 'replay' });
      const pay = steps.find((s) => s.step_id === 'pay')!;
      expect(pay.simulation).toMatchObject({ ok: true });
      expect(pay.sends).toEqual([expect.objectContaining({ status: 'queued', session: 'replay', tx_hash: null })]);
    }
    // Read at each log's block: the relayer's balance then (it holds none at the head).
    expect(balances).toEqual(['11', '23', '36']);
  };

  it('replays the logs of a range through the API: one simulated run per log, in chain order, linked to the live runs', async () => {
    const before = await relayerState();
    const cursor = await cursorOf();
    const started = await client.api('POST', '/api/workflows/deposits/replays', { from_block: blocks[0], to_block: blocks[2] });
    expect(started.status).toBe(202);
    await checkReplay(started.body.session_id);
    expect(await relayerState()).toEqual(before);
    expect((await client.get('/api/spend?relayer=ops&limit=500')).entries).toEqual([]);
    expect((await client.get('/api/history/txs?relayer=ops&limit=500')).items.every((s: Json) => s.status === 'queued' && s.tx_hash === null)).toBe(true);
    expect(await cursorOf()).toBeGreaterThanOrEqual(cursor);
    // The live runs are as they were: still waiting for their approvals.
    expect((await runsOf('workflow=deposits&session=live')).filter((r) => r.block <= blocks[2]!).map((r) => r.status)).toEqual(['waiting', 'waiting', 'waiting']);
  }, 90_000);

  it('replays the same range through `chainflow replay`, and refuses bad input naming the field', async () => {
    const before = await relayerState();
    const cli = chainflow(['replay', 'deposits', '--from-block', String(blocks[0]), '--to-block', String(blocks[2]), '--json'], { cwd: dir, env });
    expect(cli.stderr).toBe('');
    expect(cli.status).toBe(0);
    const printed = JSON.parse(cli.stdout) as Json;
    expect(printed.run_count).toBe(3);
    await checkReplay(printed.session_id);
    expect(await relayerState()).toEqual(before);

    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const bad = chainflow(['replay', 'deposits', '--from-block', '5', '--to-block', '4'], { cwd: dir, env });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--to-block/);
    expect(hasStackTrace(bad.stderr)).toBe(false);
    const refusals: Array<[string, Json, number, RegExp]> = [
      ['deposits', { from_block: 1 }, 400, /to_block/],
      ['deposits', { from_block: 'one', to_block: 2 }, 400, /from_block/],
      ['deposits', { from_block: 3, to_block: 2 }, 400, /to_block/],
      ['deposits', { from_block: 1, to_block: head + 100 }, 400, /to_block: is above the chain's head/],
      ['deposits', { from_block: 0, to_block: head + 1_000_000 }, 400, /to_block/],
      ['by_hand', { from_block: 1, to_block: 2 }, 400, /workflow/],
      ['nope', { from_block: 1, to_block: 2 }, 404, /workflow/],
    ];
    const sessions = (await client.get('/api/history/replays?limit=500')).items.length;
    for (const [workflow, body, status, message] of refusals) {
      const res = await client.api('POST', `/api/workflows/${workflow}/replays`, body);
      expect([workflow, body, res.status]).toEqual([workflow, body, status]);
      expect(res.body.error).toMatch(message);
    }
    expect((await client.get('/api/history/replays?limit=500')).items.length).toBe(sessions);
  }, 90_000);
});
