/**
 * The event trigger end to end (issue #28, CONTRACT 8.6): a real anvil node, a real ERC-20-like contract
 * (test/fixtures/contracts/MiniToken.sol compiled with solc), and the real `chainflow start` on a SQLite file. Each
 * Transfer log starts exactly one run, also through kill -9 and a restart; confirmations hold a run back until its
 * block has them; a provider that refuses eth_getLogs over 5 blocks (the fault proxy, in Alchemy's words) is split
 * around; a `wait_event` run parks and resumes on its log.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { e2eConfigHead } from '../support/e2e-config';
import { engineClient, type Json } from '../support/engine-client';
import { eventually, startProcessServer, type ProcessServer } from '../support/process';
import { refuseWideLogRanges, startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { compileContract } from '../support/solidity';

const API_TOKEN = 'api-token-5e0c7a31';
const DEPLOYER = ANVIL_ACCOUNTS[0]!;
const HOLDER = '0x00000000000000000000000000000000000ca5e1';
const TRANSFER = 'Transfer(address indexed from, address indexed to, uint256 value)';

function config(token: string, fromBlock: number, storage: string): string {
  const trigger = (network: string, extra = ''): string =>
    `{ kind: event, network: ${network}, address: "${token}", event: "${TRANSFER}", from_block: ${fromBlock}${extra} }`;
  const steps = `
    steps:
      - id: balance
        type: read
        network: anvil
        to: "${token}"
        call: { function: "balanceOf(address) returns (uint256)", args: ["\${{ trigger.payload.to }}"] }`;
  return `${e2eConfigHead([], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ], poll_interval: 1s }
  narrow: { chain_id: 31337, rpc: [ { env: NARROW_RPC } ], poll_interval: 1s, max_block_range: 2000 }
workflows:
  deposits:
    trigger: ${trigger('anvil')}${steps}
  confirmed:
    trigger: ${trigger('anvil', ', confirmations: 4')}${steps}
  narrow:
    trigger: ${trigger('narrow')}${steps}
  settle:
    trigger: { kind: manual }
    steps:
      - { id: paid, type: wait_event, network: anvil, address: "${token}", event: "${TRANSFER}", where: "log.to == trigger.payload.to", timeout: 5m }
`;
}

describe.each(E2E_STORAGES)('the event trigger on a real chain, end to end, on %s', (_name, freshStorage) => {
  const abi = new Web3Abi();
  let anvil: Anvil;
  let proxy: RpcProxy;
  let dir: string;
  let server: ProcessServer;
  let token: string;
  let env: Record<string, string>;
  let database: FreshPostgres | undefined;
  /** Amounts minted so far, in order: each mint is one Transfer log in a block of its own. */
  const minted: bigint[] = [];

  const client = engineClient(() => server.baseUrl, { token: API_TOKEN });
  const transact = async (tx: Record<string, string>): Promise<Json> => {
    const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: DEPLOYER.address, gas: '0x1e8480', ...tx }]);
    // Automine answers before the block is sealed at times: the receipt is read until it is there.
    return eventually(() => anvil.rpc<Json | null>('eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined), 10_000, 'receipt');
  };
  const mint = async (amount: bigint): Promise<number> => {
    const receipt = await transact({ to: token, data: abi.encodeCall('mint(address,uint256)', [HOLDER, amount.toString()]) });
    minted.push(amount);
    return Number(receipt.blockNumber);
  };
  const head = async (): Promise<number> => Number(await anvil.rpc<string>('eth_blockNumber'));
  const runsOf = async (workflow: string): Promise<Json[]> => (await client.get(`/api/history/runs?workflow=${workflow}&limit=500`)).items;
  const stateOf = async (workflow: string): Promise<Json> =>
    ((await client.get('/api/history/workflows?limit=500')).items as Json[]).find((w) => w.workflow === workflow)!;
  /** The runs of `workflow` once there are `count`, every one ended. */
  const settled = (workflow: string, count: number, timeoutMs = 30_000): Promise<Json[]> => eventually(async () => {
    const runs = await runsOf(workflow);
    return runs.length >= count && runs.every((r) => ['succeeded', 'failed'].includes(r.status)) ? runs : undefined;
  }, timeoutMs, `${count} ended runs of ${workflow}`);
  const payloadValues = async (runs: readonly Json[]): Promise<string[]> => Promise.all(runs.map(async (r) => {
    const timeline = await client.get(`/api/history/runs/${r.run_id}/timeline`);
    return String((timeline.events as Json[]).find((e) => e.kind === 'trigger')!.trigger.payload.value);
  }));

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url, refuseWideLogRanges(5));
    token = String((await transact({ data: compileContract('MiniToken.sol', 'MiniToken') })).contractAddress).toLowerCase();
    dir = makeTempDir('chainflow-events-');
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(token, (await head()) + 1, storageSection(database)));
    env = { API_TOKEN, RPC: anvil.url, NARROW_RPC: proxy.url };
    // Blocks to read back from from_block at the first poll: wider than the narrow provider serves in one request.
    await anvil.rpc('anvil_mine', ['0x8']);
    server = await startProcessServer(dir, env);
  }, 60_000);
  afterAll(() => tearDownSuite({ server, stops: [proxy, anvil], database, dir }));

  it('starts one run per Transfer log, with the log\'s network, contract and block, and the decoded payload in its context', async () => {
    const blocks = [await mint(11n), await mint(12n), await mint(13n)];
    const runs = await settled('deposits', 3);
    expect(runs).toHaveLength(3);
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(runs.map((r) => r.block).sort((a, b) => a - b)).toEqual(blocks);
    expect(runs.every((r) => r.network === 'anvil' && r.contract === token && r.trigger === 'event')).toBe(true);
    expect((await payloadValues(runs)).sort()).toEqual(['11', '12', '13']);
    const timeline = await client.get(`/api/history/runs/${runs[0]!.run_id}/timeline`);
    const read = (timeline.events as Json[]).find((e) => e.kind === 'step');
    expect(read?.input).toMatchObject({ call: { args: [HOLDER] } });
    // The timeline shows the log the engine journaled: its block (the run item's), hash, transaction and place.
    const log = (timeline.events as Json[]).find((e) => e.kind === 'trigger')?.log;
    expect(log).toMatchObject({ network: 'anvil', contract: token, block_number: runs[0]!.block, log_index: expect.any(Number), tx_url: null });
    expect(log.block_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(log.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const state = await eventually(async () => {
      const s = await stateOf('deposits');
      return s.head_block >= blocks[2]! ? s : undefined;
    }, 10_000, 'the cursor and head of deposits');
    expect(state.cursor_block).toBeLessThanOrEqual(state.head_block);
    // GET /api/workflows shows the engine's blocks too (they may have moved since: the engine keeps polling).
    const configured = ((await client.get('/api/workflows')).items as Json[]).find((w) => w.workflow === 'deposits')!;
    expect(configured).toMatchObject({ trigger: 'event', network: 'anvil' });
    expect(configured.head_block).toBeGreaterThanOrEqual(state.head_block);
    expect(configured.lag_blocks).toBe(configured.head_block - configured.cursor_block);
    const metrics = (await client.api('GET', '/metrics')).body.text as string;
    expect(metrics).toMatch(/chainflow_event_lag_blocks\{workflow="deposits"\} \d+/);
  }, 60_000);

  it('holds a run back until its log\'s block has the confirmations, its own included', async () => {
    // The logs so far get their confirmations first, so that what follows counts this log's run alone.
    await anvil.rpc('anvil_mine', ['0x3']);
    const before = (await settled('confirmed', minted.length)).length;
    const block = await mint(21n);
    await anvil.rpc('anvil_mine', ['0x2']);
    // The poller has seen the head two blocks above the log (three confirmations of four): still no run.
    await eventually(async () => ((await stateOf('confirmed')).head_block >= block + 2 ? true : undefined), 10_000, 'a poll at head + 2');
    expect((await runsOf('confirmed')).length).toBe(before);
    await anvil.rpc('anvil_mine', ['0x1']);
    const runs = await settled('confirmed', before + 1);
    expect(runs.filter((r) => r.block === block)).toHaveLength(1);
  }, 60_000);

  it('splits its reads around a provider that refuses ranges over 5 blocks, and starts each log\'s run once', async () => {
    await anvil.rpc('anvil_mine', ['0x8']);
    const runs = await settled('narrow', minted.length);
    expect((await payloadValues(runs)).sort()).toEqual(minted.map(String).sort());
    expect(proxy.faults.get('eth_getLogs') ?? 0).toBeGreaterThan(0);
  }, 60_000);

  it('starts each log\'s run exactly once through kill -9 and a restart, logs emitted while down included', async () => {
    await mint(31n);
    await server.kill('SIGKILL');
    await mint(32n);
    await mint(33n);
    server = await startProcessServer(dir, env);
    await anvil.rpc('anvil_mine', ['0x4']);
    const runs = await settled('deposits', minted.length);
    const values = await payloadValues(runs);
    expect(values.sort()).toEqual(minted.map(String).sort());
    expect(new Set(values).size).toBe(values.length);
    const narrow = await settled('narrow', minted.length);
    expect(narrow).toHaveLength(minted.length);
  }, 90_000);

  it('parks a wait_event run until a later log matches its where, and finishes its step with that log', async () => {
    const payee = '0x00000000000000000000000000000000000ca5e2';
    const started = await client.api('POST', '/api/workflows/settle/runs', { input: { to: payee } });
    expect(started.status).toBe(202);
    const runId = String(started.body.run_id);
    await eventually(async () => {
      const run = await client.run(runId);
      return run?.status === 'waiting' && run.wait_kind === 'event' ? run : undefined;
    }, 15_000, 'the run to wait on its event');
    // A log for someone else first: its where does not hold.
    await mint(5n);
    await transact({ to: token, data: abi.encodeCall('mint(address,uint256)', [payee, '7']) });
    const run = await client.ended(runId, 30_000);
    expect(run.status).toBe('succeeded');
    const timeline = await client.get(`/api/history/runs/${runId}/timeline`);
    const step = (timeline.events as Json[]).find((e) => e.kind === 'step' && e.step_id === 'paid');
    expect(step?.output).toEqual({ from: `0x${'0'.repeat(40)}`, to: payee, value: '7' });
  }, 60_000);
});
