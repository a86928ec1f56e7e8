/**
 * Exact amounts and checked addresses end to end (issue #27 part 5, CONTRACT 8.8): a real anvil node and the real
 * `chainflow start` process, on SQLite and on PostgreSQL. A webhook body's number beyond 2^53 is paid to the wei (the chain says so), a u256
 * condition and `if` let a 10-token payout through, and a `to` with a wrong EIP-55 checksum fails its step
 * `expression_error` with nothing broadcast.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { engineClient, minedNonce } from '../support/engine-client';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { startProcessServer, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { e2eConfigHead } from '../support/e2e-config';

const HOOK_SECRET = 'hook-secret-a1b2c3';
const API_TOKEN = 'api-token-amounts-77';
const OPS = ANVIL_ACCOUNTS[4]!;
/** EIP-55's own example, and the same address with its last letter's case flipped. */
const GOOD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BAD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
const SMALL_PAYEE = '0x00000000000000000000000000000000000a0001';
/** 2^60 + 1, written as a JSON number: JSON.parse would make it 2^60. */
const TWO_POW_60_PLUS_1 = '1152921504606846977';
const TEN_TOKENS = '10000000000000000000';

interface Json { [key: string]: any }

function config(storage: string): string {
  return `${e2eConfigHead(['hook: { env: HOOK_SECRET }'], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ] }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
workflows:
  payouts:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    steps:
      - { id: pay, type: send, relayer: ops, to: "\${{ trigger.payload.to }}", value: "\${{ trigger.payload.amount }}" }
  large:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    conditions:
      - { name: above_ten_tokens, if: 'u256(trigger.payload.amount) > u256("${TEN_TOKENS}")' }
    steps:
      - id: pay
        type: send
        relayer: ops
        if: 'u256(trigger.payload.amount) - u256("${TEN_TOKENS}") == 1'
        to: "\${{ trigger.payload.to }}"
        value: "\${{ u256(trigger.payload.amount) }}"
`;
}

describe.each(E2E_STORAGES)('exact amounts and checked addresses on a real chain, end to end, on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let dir: string;
  let server: ProcessServer;
  const client = engineClient(() => server.baseUrl, { token: API_TOKEN, hookSecret: HOOK_SECRET });
  const { ended, sendsOf } = client;
  const api = client.get;
  /** Posts `raw` as it is: the number's text must reach chainflow untouched by JSON.stringify. */
  const hook = (workflow: string, raw: string): Promise<string> => client.hook(workflow, raw);
  const nonceOf = (address: string): Promise<number> => minedNonce(anvil, address);
  const valueOf = async (txHash: string): Promise<bigint> => BigInt((await anvil.rpc<{ value: string }>('eth_getTransactionByHash', [txHash])).value);

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    dir = makeTempDir('chainflow-amounts-');
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(storageSection(database)));
    server = await startProcessServer(dir, { HOOK_SECRET, API_TOKEN, RPC: anvil.url, OPS_KEY: OPS.privateKey });
  }, 60_000);
  afterAll(() => tearDownSuite({ server, stops: [anvil], database, dir }));

  it('pays a webhook amount of 2^60+1 wei, given as a JSON number, to the wei', async () => {
    const run = await ended(await hook('payouts', `{"to": "${SMALL_PAYEE}", "amount": ${TWO_POW_60_PLUS_1}}`));
    expect(run.status).toBe('succeeded');
    const [send] = await sendsOf(run.run_id);
    expect(send).toMatchObject({ value_wei: TWO_POW_60_PLUS_1, outcome: 'confirmed' });
    expect(await valueOf(send!.tx_hash)).toBe(BigInt(TWO_POW_60_PLUS_1));
    expect(await anvil.balance(SMALL_PAYEE)).toBe(BigInt(TWO_POW_60_PLUS_1));
  });

  it('a u256 condition and if let exactly a 10-token-plus-one-wei payout through; ten tokens exactly is skipped', async () => {
    const amount = (BigInt(TEN_TOKENS) + 1n).toString();
    const paid = await ended(await hook('large', `{"to": "${GOOD}", "amount": ${amount}}`));
    expect(paid.status).toBe('succeeded');
    const [send] = await sendsOf(paid.run_id);
    expect(await valueOf(send!.tx_hash)).toBe(BigInt(TEN_TOKENS) + 1n);
    expect(await anvil.balance(GOOD)).toBe(BigInt(TEN_TOKENS) + 1n);
    const skipped = await ended(await hook('large', `{"to": "${GOOD}", "amount": ${TEN_TOKENS}}`));
    expect(skipped.status).toBe('skipped');
    expect(await sendsOf(skipped.run_id)).toEqual([]);
  });

  it('a to whose EIP-55 checksum is wrong fails the step expression_error, and nothing is broadcast', async () => {
    const nonce = await nonceOf(OPS.address);
    const run = await ended(await hook('payouts', `{"to": "${BAD}", "amount": 1}`));
    expect(run).toMatchObject({ status: 'failed', error_kind: 'expression_error' });
    const timeline = await api(`/api/history/runs/${run.run_id}/timeline`);
    expect(JSON.stringify(timeline)).toContain(`to: '${BAD}' has a wrong EIP-55 checksum`);
    expect(await sendsOf(run.run_id)).toEqual([]);
    expect(await nonceOf(OPS.address)).toBe(nonce);
    expect(Number(await anvil.rpc<string>('eth_getTransactionCount', [OPS.address, 'pending']))).toBe(nonce);
  });
});
