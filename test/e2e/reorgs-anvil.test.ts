/**
 * Reorgs answered end to end (issue #28, CONTRACT 8.6): a real anvil node, MiniToken compiled with solc, the real
 * `chainflow start`. A mint's block is replaced (evm_snapshot before it, evm_revert after the run parked, then another
 * mint in a new block at the same height): the affected run gets one `reorg.response`, its `on_reorg` step calls a
 * local receiver with the reorg in its context, the parked run ends `cancelled` / `reorged`, and the new block's log
 * starts a new run. And sends under a reorg: a payout of an event-started run whose block is removed goes back to
 * awaiting, lands again (broadcast again by the send watch), and the spend ledger then equals the canonical chain's
 * receipts and what the relayer paid, the removed landing listed `reorged: true`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { e2eConfigHead } from '../support/e2e-config';
import { engineClient, type Json } from '../support/engine-client';
import { eventually, startProcessServer, StubService, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, removeTempDir } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { compileContract } from '../support/solidity';

const API_TOKEN = 'api-token-9b2d41c7';
const DEPLOYER = ANVIL_ACCOUNTS[0]!;
const HOLDER = '0x00000000000000000000000000000000000ca5e1';
const TRANSFER = 'Transfer(address indexed from, address indexed to, uint256 value)';

/** Transactions from the deployer, each awaited to its receipt, and mints of MiniToken (at `tokenOf()`) to the holder. */
function deployerTxs(chain: () => Anvil, tokenOf: () => string): { transact(tx: Record<string, string>): Promise<Json>; mint(amount: bigint): Promise<Json> } {
  const abi = new Web3Abi();
  const transact = async (tx: Record<string, string>): Promise<Json> => {
    const hash = await chain().rpc<string>('eth_sendTransaction', [{ from: DEPLOYER.address, gas: '0x1e8480', ...tx }]);
    return eventually(() => chain().rpc<Json | null>('eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined), 10_000, 'receipt');
  };
  return { transact, mint: (amount) => transact({ to: tokenOf(), data: abi.encodeCall('mint(address,uint256)', [HOLDER, amount.toString()]) }) };
}

function config(token: string, fromBlock: number, receiver: string, storage: string): string {
  return `${e2eConfigHead([], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ], poll_interval: 1s }
workflows:
  deposits:
    trigger: { kind: event, network: anvil, address: "${token}", event: "${TRANSFER}", from_block: ${fromBlock} }
    steps:
      - { id: hold, type: delay, duration: 1h }
    on_reorg:
      - id: undo
        type: http_call
        method: POST
        url: "${receiver}/undo"
        body: { run: "\${{ reorg.run_id }}", block: "\${{ reorg.block }}", depth: "\${{ reorg.depth }}", value: "\${{ trigger.payload.value }}" }
`;
}

describe.each(E2E_STORAGES)('reorgs answered by on_reorg on a real chain, end to end, on %s', (_name, freshStorage) => {
  let anvil: Anvil;
  let dir: string;
  let server: ProcessServer;
  let token: string;
  let database: FreshPostgres | undefined;
  const receiver = new StubService();

  const client = engineClient(() => server.baseUrl, { token: API_TOKEN });
  const { transact, mint } = deployerTxs(() => anvil, () => token);
  const runsOf = async (): Promise<Json[]> => (await client.get('/api/history/runs?workflow=deposits&limit=500')).items;

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    await receiver.start();
    token = String((await transact({ data: compileContract('MiniToken.sol', 'MiniToken') })).contractAddress).toLowerCase();
    dir = makeTempDir('chainflow-reorgs-');
    database = await freshStorage();
    const from = Number(await anvil.rpc<string>('eth_blockNumber')) + 1;
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(token, from, receiver.baseUrl, storageSection(database)));
    server = await startProcessServer(dir, { API_TOKEN, RPC: anvil.url });
  }, 60_000);
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await receiver.close();
    await anvil?.stop();
    await database?.drop();
    if (dir) removeTempDir(dir);
  });

  it('answers the run of a removed block once, runs its on_reorg step, cancels it reorged, and starts a run for the new log', async () => {
    const kept = await mint(5n);
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    const removed = await mint(7n);
    const parked = await eventually(async () => {
      const runs = await runsOf();
      return runs.length === 2 && runs.every((r) => r.status === 'waiting') ? runs : undefined;
    }, 30_000, 'two parked runs');
    const removedRun = parked.find((r) => r.block === Number(removed.blockNumber))!;
    const keptRun = parked.find((r) => r.block === Number(kept.blockNumber))!;

    await anvil.rpc('evm_revert', [snapshot]);
    const replacement = await mint(9n);
    expect(Number(replacement.blockNumber)).toBe(Number(removed.blockNumber));
    expect(replacement.blockHash).not.toBe(removed.blockHash);

    const reorgs = await eventually(async () => {
      const items = (await client.get('/api/history/reorgs?workflow=deposits')).items as Json[];
      return items.length > 0 && items[0]!.steps.length > 0 ? items : undefined;
    }, 30_000, 'the reorg response and its step').catch((err: Error) => {
      throw new Error(`${err.message}\n${server.log().split('\n').filter((l) => /reorg|event|warn|error/.test(l)).slice(-15).join('\n')}`);
    });
    expect(reorgs).toHaveLength(1);
    expect(reorgs[0]).toMatchObject({
      run_id: removedRun.run_id, workflow: 'deposits', network: 'anvil', block: Number(removed.blockNumber), removed_block_hash: removed.blockHash, depth: 1,
      steps: [expect.objectContaining({ step_id: 'undo', status: 'succeeded' })],
    });
    expect(receiver.hits('/undo').map((r) => JSON.parse(r.body))).toEqual([
      { run: removedRun.run_id, block: String(Number(removed.blockNumber)), depth: '1', value: '7' },
    ]);
    const after = await eventually(async () => {
      const runs = await runsOf();
      return runs.length === 3 ? runs : undefined;
    }, 30_000, 'the new log\'s run');
    const byId = new Map(after.map((r) => [r.run_id, r]));
    expect(byId.get(removedRun.run_id)).toMatchObject({ status: 'cancelled', error_kind: 'reorged' });
    expect(byId.get(keptRun.run_id)).toMatchObject({ status: 'waiting' });
    const fresh = after.find((r) => r.run_id !== removedRun.run_id && r.run_id !== keptRun.run_id)!;
    expect(fresh.block).toBe(Number(replacement.blockNumber));
    const timeline = await client.get(`/api/history/runs/${fresh.run_id}/timeline`);
    expect((timeline.events as Json[]).find((e) => e.kind === 'trigger')!.trigger.payload.value).toBe('9');

    // Later polls answer nothing more.
    await anvil.rpc('anvil_mine', ['0x3']);
    await eventually(async () => {
      const state = ((await client.get('/api/history/workflows?limit=500')).items as Json[]).find((w) => w.workflow === 'deposits')!;
      return state.head_block >= Number(replacement.blockNumber) + 3 ? true : undefined;
    }, 10_000, 'a poll past the reorg');
    expect((await client.get('/api/history/reorgs?workflow=deposits')).items).toHaveLength(1);
    expect(receiver.hits('/undo')).toHaveLength(1);
    const metrics = (await client.api('GET', '/metrics')).body.text as string;
    expect(metrics).toMatch(/chainflow_reorgs_total\{network="anvil",deep="false"\} 1/);
  }, 90_000);
});

const RELAYER = ANVIL_ACCOUNTS[3]!;
const RECIPIENT = '0x00000000000000000000000000000000000be11a';
const PAYOUT_WEI = 1000n;

function payoutsConfig(token: string, fromBlock: number, storage: string): string {
  return `${e2eConfigHead([], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ], poll_interval: 1s }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
workflows:
  payouts:
    trigger: { kind: event, network: anvil, address: "${token}", event: "${TRANSFER}", from_block: ${fromBlock} }
    steps:
      - { id: pay, type: send, relayer: ops, to: "${RECIPIENT}", value: "${PAYOUT_WEI}" }
`;
}

describe.each(E2E_STORAGES)('sends and the spend ledger under a reorg on a real chain, end to end, on %s', (_name, freshStorage) => {
  let anvil: Anvil;
  let dir: string;
  let server: ProcessServer;
  let token: string;
  let database: FreshPostgres | undefined;
  let startBalance: bigint;
  const client = engineClient(() => server.baseUrl, { token: API_TOKEN });
  const { transact, mint } = deployerTxs(() => anvil, () => token);
  const sends = async (): Promise<Json[]> => (await client.get('/api/history/txs?workflow=payouts&limit=500')).items as Json[];
  const settledSends = (count: number, what: string): Promise<Json[]> => eventually(async () => {
    const all = await sends();
    return all.length === count && all.every((s) => s.status === 'settled') ? all : undefined;
  }, 30_000, what);
  const spend = async (): Promise<Json> => (await client.get('/api/spend?workflow=payouts&limit=500'));

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    token = String((await transact({ data: compileContract('MiniToken.sol', 'MiniToken') })).contractAddress).toLowerCase();
    startBalance = BigInt(await anvil.rpc<string>('eth_getBalance', [RELAYER.address, 'latest']));
    dir = makeTempDir('chainflow-reorged-sends-');
    database = await freshStorage();
    const from = Number(await anvil.rpc<string>('eth_blockNumber')) + 1;
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), payoutsConfig(token, from, storageSection(database)));
    server = await startProcessServer(dir, { API_TOKEN, RPC: anvil.url, OPS_KEY: RELAYER.privateKey });
  }, 60_000);
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await anvil?.stop();
    await database?.drop();
    if (dir) removeTempDir(dir);
  });

  it('sends a send whose receipt block was removed back to awaiting; after it lands again the ledger equals the chain\'s receipts', async () => {
    await mint(5n);
    const [kept] = await settledSends(1, 'the first payout settled');
    const snapshot = await anvil.rpc<string>('evm_snapshot');
    await mint(7n);
    const both = await settledSends(2, 'the second payout settled');
    const gone = both.find((s) => s.send_id !== kept!.send_id)!;
    const goneReceipt = await anvil.rpc<Json>('eth_getTransactionReceipt', [gone.tx_hash]);
    expect((await spend()).entries).toHaveLength(2);

    // The mint's block and the payout's block are removed; the new chain is longer (three empty blocks).
    await anvil.rpc('evm_revert', [snapshot]);
    await anvil.rpc('anvil_mine', ['0x3']);

    // The send goes back to awaiting its transaction, which the send watch broadcasts again: it lands in a new block.
    const entries = await eventually(async () => {
      const list = (await spend()).entries as Json[];
      return list.length === 3 && list.filter((e) => e.reorged === false).length === 2 ? list : undefined;
    }, 45_000, 'the reorged entry and the new one').catch((err: Error) => {
      throw new Error(`${err.message}\n${server.log().split('\n').filter((l) => /reorg|send|warn|error/.test(l)).slice(-15).join('\n')}`);
    });
    const landedAgain = await eventually(async () => {
      const receipt = await anvil.rpc<Json | null>('eth_getTransactionReceipt', [gone.tx_hash]);
      return receipt ?? undefined;
    }, 10_000, 'the payout landed again');
    expect(landedAgain.blockHash).not.toBe(goneReceipt.blockHash);
    const ofGone = entries.filter((e) => e.step_run_id === gone.step_run_id);
    expect(ofGone.map((e) => [e.tx_hash, e.reorged, e.gas_spend_wei])).toEqual(expect.arrayContaining([
      [gone.tx_hash, true, (BigInt(goneReceipt.gasUsed) * BigInt(goneReceipt.effectiveGasPrice)).toString()],
      [gone.tx_hash, false, (BigInt(landedAgain.gasUsed) * BigInt(landedAgain.effectiveGasPrice)).toString()],
    ]));
    expect((await sends()).find((s) => s.send_id === gone.send_id)).toMatchObject({ status: 'settled', outcome: 'confirmed', tx_hash: gone.tx_hash });

    // The ledger's sums are the canonical chain's receipts, and what the relayer paid on chain.
    let gas = 0n;
    for (const e of entries.filter((x) => x.reorged === false)) {
      const receipt = await anvil.rpc<Json>('eth_getTransactionReceipt', [e.tx_hash]);
      const block = await anvil.rpc<Json>('eth_getBlockByNumber', [receipt.blockNumber, false]);
      expect(block.hash).toBe(receipt.blockHash);
      gas += BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    }
    const { total } = (await spend()).summary;
    expect(total).toMatchObject({ tx_count: 2, gas_spend_wei: gas.toString(), value_wei: (2n * PAYOUT_WEI).toString() });
    const balance = BigInt(await anvil.rpc<string>('eth_getBalance', [RELAYER.address, 'latest']));
    expect(startBalance - balance).toBe(gas + 2n * PAYOUT_WEI);
    const relayers = (await client.get('/api/spend?relayer=ops')).summary.total;
    expect(relayers.gas_spend_wei).toBe(gas.toString());
  }, 120_000);
});
