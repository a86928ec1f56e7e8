/**
 * Budgets end to end (issue #27, CONTRACT 8.7, 8.8): a real anvil node and the real `chainflow start` process on a real
 * SQLite file and on PostgreSQL (CONTRACT 10). Two 0.6 ether payouts fired at once against a 1 ether max_native_value: exactly one pays. A real
 * ERC-20 (test/fixtures/contracts/MiniToken.sol, compiled here with solc, deployed on anvil, minted to the relayer):
 * a transfer of 1000 against max_token_value 5 is refused budget_exceeded with nothing broadcast; a transfer of 3
 * passes and shows its token_transfer in the transactions list.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { engineClient, minedNonce } from '../support/engine-client';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { eventually, startProcessServer, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { compileContract } from '../support/solidity';
import { e2eConfigHead } from '../support/e2e-config';

const HOOK_SECRET = 'hook-secret-41ab7c';
const API_TOKEN = 'api-token-9d2f61e0';
const DEPLOYER = ANVIL_ACCOUNTS[0]!;
const OPS = ANVIL_ACCOUNTS[1]!;
const TOKENS = ANVIL_ACCOUNTS[2]!;
const RECIPIENT = '0x00000000000000000000000000000000000fee02';
const ETHER = 10n ** 18n;

interface Json { [key: string]: any }

function config(token: string, storage: string): string {
  return `${e2eConfigHead(['hook: { env: HOOK_SECRET }'], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ] }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
  tokens: { network: anvil, signer: { env: TOKENS_KEY } }
budgets:
  payout_value: { window: 24h, max_native_value: 1 ether, scope: { relayers: [ops] } }
  token_cap: { window: 24h, max_token_value: 5 }
workflows:
  payouts:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    budgets: [payout_value]
    steps:
      - { id: pay, type: send, relayer: ops, to: "\${{ trigger.payload.to }}", value: "\${{ trigger.payload.amount }}" }
  token_payout:
    trigger: { kind: manual }
    budgets: [token_cap]
    steps:
      - id: pay
        type: send
        relayer: tokens
        to: "${token}"
        value: "0"
        call: { function: "transfer(address,uint256)", args: ["\${{ trigger.payload.to }}", "\${{ trigger.payload.amount }}"] }
`;
}

describe.each(E2E_STORAGES)('budgets on a real chain, end to end, on %s', (_name, freshStorage) => {
  const abi = new Web3Abi();
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let dir: string;
  let server: ProcessServer;
  let token: string;

  const client = engineClient(() => server.baseUrl, { token: API_TOKEN, hookSecret: HOOK_SECRET });
  const { api, ended, sendsOf } = client;
  const hook = (payload: unknown): Promise<string> => client.hook('payouts', payload);
  const nonceOf = (address: string): Promise<number> => minedNonce(anvil, address);
  /** A transaction from an unlocked anvil account, mined at once (automine); its receipt. */
  const transact = async (tx: Record<string, string>): Promise<Json> => {
    const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: DEPLOYER.address, gas: '0x1e8480', ...tx }]);
    const receipt = await eventually(() => anvil.rpc<Json | null>('eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined), 10_000, 'receipt');
    expect(receipt.status).toBe('0x1');
    return receipt;
  };
  const tokenBalance = async (address: string): Promise<bigint> =>
    BigInt(await anvil.rpc<string>('eth_call', [{ to: token, data: abi.encodeCall('balanceOf(address)', [address]) }, 'latest']));

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    const deployed = await transact({ data: compileContract('MiniToken.sol', 'MiniToken') });
    token = String(deployed.contractAddress).toLowerCase();
    await transact({ to: token, data: abi.encodeCall('mint(address,uint256)', [TOKENS.address, '1000000']) });
    dir = makeTempDir('chainflow-budgets-');
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(token, storageSection(database)));
    server = await startProcessServer(dir, { HOOK_SECRET, API_TOKEN, RPC: anvil.url, OPS_KEY: OPS.privateKey, TOKENS_KEY: TOKENS.privateKey });
  }, 60_000);
  afterAll(() => tearDownSuite({ server, stops: [anvil], database, dir }));

  it('pays exactly one of two 0.6 ether payouts fired at once against a 1 ether max_native_value', async () => {
    const before = await anvil.balance(RECIPIENT);
    const nonceBefore = await nonceOf(OPS.address);
    const amount = String((6n * ETHER) / 10n);
    const runIds = await Promise.all([hook({ to: RECIPIENT, amount, n: 1 }), hook({ to: RECIPIENT, amount, n: 2 })]);
    const runs = await Promise.all(runIds.map((id) => ended(id)));
    expect(runs.map((r) => r.status).sort()).toEqual(['failed', 'succeeded']);
    const refused = runs.find((r) => r.status === 'failed')!;
    expect(refused.error_kind).toBe('budget_exceeded');
    expect(await sendsOf(refused.run_id)).toEqual([]);
    expect(await anvil.balance(RECIPIENT)).toBe(before + (6n * ETHER) / 10n);
    expect(await nonceOf(OPS.address)).toBe(nonceBefore + 1);
  });

  it('refuses a token transfer over max_token_value before any broadcast, and lets one within it through with its token_transfer', async () => {
    const nonceBefore = await nonceOf(TOKENS.address);
    const big = await api('POST', '/api/workflows/token_payout/runs', { input: { to: RECIPIENT, amount: '1000' } });
    expect(big.status).toBe(202);
    const refused = await ended(big.body.run_id);
    expect(refused).toMatchObject({ status: 'failed', error_kind: 'budget_exceeded' });
    expect(await sendsOf(refused.run_id)).toEqual([]);
    expect(await nonceOf(TOKENS.address)).toBe(nonceBefore);
    expect(await tokenBalance(RECIPIENT)).toBe(0n);
    const timeline = (await api('GET', `/api/history/runs/${refused.run_id}/timeline`)).body;
    expect(JSON.stringify(timeline)).toContain('max_token_value');

    const small = await api('POST', '/api/workflows/token_payout/runs', { input: { to: RECIPIENT, amount: '3' } });
    const paid = await ended(small.body.run_id);
    expect(paid.status).toBe('succeeded');
    expect(await tokenBalance(RECIPIENT)).toBe(3n);
    const [send] = await sendsOf(paid.run_id);
    expect(send).toMatchObject({ status: 'settled', outcome: 'confirmed', to: token, value_wei: '0', token_transfer: { contract: token, to: RECIPIENT, amount: '3' } });
    const listed = (await api('GET', '/api/history/txs?relayer=tokens')).body.items as Json[];
    expect(listed.map((s) => s.token_transfer)).toEqual([{ contract: token, to: RECIPIENT, amount: '3' }]);
  });
});
