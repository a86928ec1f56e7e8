/**
 * Sends on a relayer lane under faults, end to end (issue #27, CONTRACT 8.7): a real anvil behind the fault-injecting
 * JSON-RPC proxy, the real `chainflow start` process on a real SQLite file and on PostgreSQL. A transaction sent from the relayer's key
 * outside chainflow jams nothing, also after a restart; a receipt that lags the nonce still settles `confirmed`; a send
 * stuck under max_fee_per_gas ends by its timeout at a bounded count of provider requests, and lands later with its
 * ledger entry.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { engineClient, minedNonce } from '../support/engine-client';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { eventually, startProcessServer, type ProcessServer } from '../support/process';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { e2eConfigHead } from '../support/e2e-config';

const API_TOKEN = 'api-token-27a9c4e1';
const OPS = ANVIL_ACCOUNTS[4]!;
const CAPPED = ANVIL_ACCOUNTS[5]!;
const RECIPIENT = '0x00000000000000000000000000000000000fee27';
const CAP_WEI = 1_000_000_000n;

interface Json { [key: string]: any }

function config(storage: string): string {
  return `${e2eConfigHead([], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ], replace_after: 3s }
  capped: { chain_id: 31337, rpc: [ { env: RPC } ], replace_after: 3s, max_fee_per_gas: ${CAP_WEI} }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
  capped: { network: capped, signer: { env: CAPPED_KEY } }
workflows:
  payouts:
    trigger: { kind: manual }
    steps:
      - { id: pay, type: send, relayer: ops, to: "${RECIPIENT}", value: "\${{ trigger.payload.amount }}" }
  stuck:
    trigger: { kind: manual }
    steps:
      - { id: pay, type: send, relayer: capped, to: "${RECIPIENT}", value: "777", timeout: 8s }
`;
}

describe.each(E2E_STORAGES)('sends on a relayer lane, end to end, on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let proxy: RpcProxy;
  let dir: string;
  let server: ProcessServer;
  const env = (): Record<string, string> => ({ API_TOKEN, RPC: proxy.url, OPS_KEY: OPS.privateKey, CAPPED_KEY: CAPPED.privateKey });
  const client = engineClient(() => server.baseUrl, { token: API_TOKEN });
  const { api } = client;
  const start = async (workflow: string, input: Json = {}): Promise<string> => {
    const res = await api('POST', `/api/workflows/${workflow}/runs`, { input });
    expect(res.status).toBe(202);
    return res.body.run_id as string;
  };
  const { run, ended } = client;
  const sendOf = async (runId: string): Promise<Json> => (await api('GET', `/api/history/txs?run_id=${runId}`)).body.items[0];
  const nonceOf = (address: string): Promise<number> => minedNonce(anvil, address);
  /** A transfer from the relayer's key that chainflow knows nothing of (anvil's dev accounts are unlocked). */
  const sendOutside = async (from: string): Promise<void> => {
    const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from, to: RECIPIENT, value: '0x1' }]);
    await eventually(async () => (await anvil.rpc('eth_getTransactionReceipt', [hash])) ?? undefined, 10_000, 'the outside transfer to land');
  };

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url);
    dir = makeTempDir('chainflow-lanes-');
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(storageSection(database)));
    server = await startProcessServer(dir, env());
  }, 60_000);
  afterAll(() => tearDownSuite({ server, stops: [proxy, anvil], database, dir }));

  it('a transaction sent from the relayer\'s key outside chainflow jams nothing: every payout lands, also after a restart', async () => {
    const payout = async (amount: string): Promise<Json> => {
      const r = await ended(await start('payouts', { amount }));
      expect(r).toMatchObject({ status: 'succeeded' });
      return sendOf(r.run_id);
    };
    await payout('1001');
    await sendOutside(OPS.address);
    for (const amount of ['1002', '1003', '1004']) expect(await payout(amount)).toMatchObject({ outcome: 'confirmed' });
    // kill -9, one more transfer from outside, and a fresh process: its stored lane is behind the chain again.
    await server.kill('SIGKILL');
    await sendOutside(OPS.address);
    server = await startProcessServer(dir, env());
    for (const amount of ['1005', '1006']) expect(await payout(amount)).toMatchObject({ outcome: 'confirmed' });
    // Six payouts and two outside transfers: eight nonces used, each once, and six ledger entries paying 1001..1006.
    expect(await nonceOf(OPS.address)).toBe(8);
    const spend = (await api('GET', '/api/spend?relayer=ops&limit=50')).body;
    expect(spend.entries.map((e: Json) => e.value_wei).sort()).toEqual(['1001', '1002', '1003', '1004', '1005', '1006']);
    expect(server.log() + server.stderr()).not.toMatch(/nonce too low/);
  }, 120_000);

  it('a receipt that lags the nonce: the landed send is read again, not settled replaced, and settles confirmed with its ledger entry', async () => {
    const nonce = await nonceOf(OPS.address);
    let lagging = true;
    proxy.setPolicy((req) => (lagging && req.method === 'eth_getTransactionReceipt' ? { result: null } : undefined));
    try {
      const runId = await start('payouts', { amount: '2027' });
      await eventually(async () => ((await nonceOf(OPS.address)) > nonce ? true : undefined), 15_000, 'the payout to be mined');
      // Several polls of a mined nonce with no receipt: the run keeps waiting, nothing is settled.
      await new Promise((r) => setTimeout(r, 5_000));
      expect(await run(runId)).toMatchObject({ status: 'waiting' });
      expect(await sendOf(runId)).toMatchObject({ status: 'submitted', outcome: null });
      lagging = false;
      expect(await ended(runId)).toMatchObject({ status: 'succeeded' });
      const send = await sendOf(runId);
      expect(send).toMatchObject({ status: 'settled', outcome: 'confirmed' });
      const spend = (await api('GET', '/api/spend?relayer=ops&limit=50')).body;
      expect(spend.entries).toContainEqual(expect.objectContaining({ tx_hash: send.tx_hash, value_wei: '2027' }));
    } finally {
      proxy.setPolicy(undefined);
    }
  }, 60_000);

  it('stuck under max_fee_per_gas: the timeout fails the step tx_expired at a bounded count of provider requests, and the landing later writes its ledger entry', async () => {
    // Nothing is mined meanwhile, and the cap is below the fee the chain quotes: no replacement or cancel can be signed.
    await anvil.rpc('evm_setAutomine', [false]);
    const runId = await start('stuck');
    await eventually(async () => {
      const r = await run(runId);
      if (r && r.status !== 'running' && r.status !== 'waiting') throw new Error(JSON.stringify(r));
      return r?.status === 'waiting' ? true : undefined;
    }, 15_000, 'the run to wait for its send');
    proxy.reset();
    const from = performance.now();
    const r = await ended(runId, 30_000);
    const seconds = (performance.now() - from) / 1000;
    expect(r).toMatchObject({ status: 'failed', error_kind: 'tx_expired' });
    const first = await sendOf(runId);
    expect(first).toMatchObject({ status: 'submitted', outcome: null });
    // One poll per second for the lane, a fee quote and a look at its bytes per replace_after (3 s), and the API
    // reads of this test: far from the 11.8 requests/s of a rebroadcast loop.
    const perSecond = proxy.total() / seconds;
    expect(perSecond).toBeLessThan(4);
    expect(proxy.counts.get('eth_sendRawTransaction') ?? 0).toBe(0);
    expect(proxy.counts.get('eth_getTransactionReceipt') ?? 0).toBe(0);
    // A block at last: the same transaction lands, and the engine's watcher settles it and records its spend.
    await anvil.rpc('evm_mine');
    await anvil.rpc('evm_setAutomine', [true]);
    const send = await eventually(async () => {
      const s = await sendOf(runId);
      return s.status === 'settled' ? s : undefined;
    }, 20_000, 'the stuck send to settle');
    expect(send).toMatchObject({ outcome: 'confirmed', tx_hash: first.tx_hash });
    const spend = (await api('GET', '/api/spend?relayer=capped')).body;
    expect(spend.entries).toEqual([expect.objectContaining({ tx_hash: first.tx_hash, value_wei: '777', workflow: 'stuck' })]);
  }, 90_000);

  afterEach(async () => {
    await anvil.rpc('evm_setAutomine', [true]);
  });
});
