/**
 * Providers as they are, end to end (CONTRACT 8.7, 8.8): the real `chainflow start` on a real SQLite file (and on
 * PostgreSQL for the payouts, whose nonces, sends and ledger are the database's: CONTRACT 10), its only
 * provider a fault-injecting proxy in front of anvil answering 20% of requests 503 and 10% rate-limited (-32005).
 * Every payout is paid exactly once: the recipient's balance, the transactions list, the spend ledger and the chain
 * agree to the wei, and no send is falsely settled replaced or dropped. Then a network whose only provider serves
 * another chain: the step fails `chain_mismatch` before any nonce is taken, the relayer row says why, the provider
 * gauge is 0, and the log names the network and the provider's number, never its URL (on SQLite only: nothing of it
 * is stored beyond the failed run, which every store's engine suite writes).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { engineClient } from '../support/engine-client';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { eventually, startProcessServer, type ProcessServer } from '../support/process';
import { flakyProvider, startRpcProxy, type RpcProxy } from '../support/rpc-proxy';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { e2eConfigHead } from '../support/e2e-config';

const HOOK_SECRET = 'hook-secret-4f2a9c';
const API_TOKEN = 'api-token-8d13e7b2';
const OPS = ANVIL_ACCOUNTS[4]!;
const PAYOUTS = 20;
const PAYOUT_WEI = 10n ** 15n + 7n;

interface Json { [key: string]: any }

function config(chainId: number, storage: string): string {
  return `${e2eConfigHead(['hook: { env: HOOK_SECRET }'], storage)}networks:
  anvil: { chain_id: ${chainId}, rpc: [ { env: RPC } ] }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
workflows:
  payouts:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    steps:
      - { id: pay, type: send, relayer: ops, to: "\${{ trigger.payload.to }}", value: "\${{ trigger.payload.amount }}" }
`;
}

/** The real server in a temp folder over `rpc` (on `database`, else the default SQLite file), with helpers for its API. */
async function serve(chainId: number, rpc: string, database?: FreshPostgres): Promise<{ server: ProcessServer; dir: string; api: (p: string) => Promise<Json>; hook: (payload: unknown) => Promise<string>; ended: (runId: string, timeoutMs?: number) => Promise<Json> }> {
  const dir = makeTempDir('chainflow-providers-');
  fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(chainId, storageSection(database)));
  const server = await startProcessServer(dir, { HOOK_SECRET, API_TOKEN, RPC: rpc, OPS_KEY: OPS.privateKey });
  const client = engineClient(() => server.baseUrl, { token: API_TOKEN, hookSecret: HOOK_SECRET });
  const api = client.get;
  const hook = (payload: unknown): Promise<string> => client.hook('payouts', payload);
  const ended = (runId: string, timeoutMs = 60_000): Promise<Json> => client.ended(runId, timeoutMs);
  return { server, dir, api, hook, ended };
}

describe.each(E2E_STORAGES)('chainflow start behind a provider that fails now and then, on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let proxy: RpcProxy;
  let app: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url, flakyProvider({ http503: 0.2, rateLimited: 0.1, seed: 27 }));
    database = await freshStorage();
    app = await serve(31337, proxy.url, database);
  }, 60_000);
  afterAll(() => tearDownSuite({ server: app?.server, stops: [proxy, anvil], database, dir: app?.dir }));

  it(`${PAYOUTS} payouts at 20% 503s and 10% rate limits: each paid exactly once, ledger and chain equal to the wei`, async () => {
    const recipient = `0x${randomBytes(20).toString('hex')}`;
    const before = await anvil.balance(OPS.address);
    const nonceBefore = Number(await anvil.rpc<string>('eth_getTransactionCount', [OPS.address, 'latest']));
    const runIds = await Promise.all(Array.from({ length: PAYOUTS }, (_, n) => app.hook({ to: recipient, amount: String(PAYOUT_WEI), n })));
    const runs = await Promise.all(runIds.map((id) => app.ended(id, 90_000)));
    for (const r of runs) expect(r).toMatchObject({ status: 'succeeded' });

    const sends = (await Promise.all(runIds.map(async (id) => (await app.api(`/api/history/txs?run_id=${id}`)).items as Json[]))).flat();
    expect(sends).toHaveLength(PAYOUTS);
    // Nothing falsely replaced or dropped: each send settled confirmed, on its first hash.
    for (const s of sends) expect(s).toMatchObject({ status: 'settled', outcome: 'confirmed', value_wei: String(PAYOUT_WEI) });
    expect(new Set(sends.map((s) => s.tx_hash)).size).toBe(PAYOUTS);

    expect(await anvil.balance(recipient)).toBe(PAYOUT_WEI * BigInt(PAYOUTS));
    expect(Number(await anvil.rpc<string>('eth_getTransactionCount', [OPS.address, 'latest']))).toBe(nonceBefore + PAYOUTS);

    const spend = await eventually(async () => {
      const s = (await app.api('/api/spend?relayer=ops&limit=500'));
      return s.entries?.length === PAYOUTS ? s : undefined;
    }, 30_000, 'every ledger entry');
    expect(spend.entries.map((e: Json) => e.tx_hash).sort()).toEqual(sends.map((s) => s.tx_hash).sort());
    const gas = BigInt(spend.summary.total.gas_spend_wei);
    expect(BigInt(spend.summary.total.value_wei)).toBe(PAYOUT_WEI * BigInt(PAYOUTS));
    for (const s of sends) {
      const receipt = await anvil.rpc<{ gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [s.tx_hash]);
      const entry = spend.entries.find((e: Json) => e.tx_hash === s.tx_hash);
      expect(BigInt(entry.gas_spend_wei)).toBe(BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
    }
    expect(before - (await anvil.balance(OPS.address))).toBe(gas + PAYOUT_WEI * BigInt(PAYOUTS));
    // The faults did happen, on the send path's own requests too.
    expect((proxy.faults.get('eth_sendRawTransaction') ?? 0) + (proxy.faults.get('eth_call') ?? 0)).toBeGreaterThan(0);
  }, 150_000);
});

describe('chainflow start on a network whose provider serves another chain', () => {
  let anvil: Anvil;
  let proxy: RpcProxy;
  let app: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil({ args: ['--chain-id', '999'] });
    proxy = await startRpcProxy(anvil.url);
    app = await serve(31337, `${proxy.url}/v3/MISMATCH-SECRET-KEY`);
  }, 60_000);
  afterAll(() => tearDownSuite({ server: app?.server, stops: [proxy, anvil], dir: app?.dir }));

  it('the send step fails chain_mismatch before any nonce is taken; the relayer row, the gauge and the log say why', async () => {
    const nonceBefore = await anvil.rpc<string>('eth_getTransactionCount', [OPS.address, 'pending']);
    const runId = await app.hook({ to: `0x${randomBytes(20).toString('hex')}`, amount: '1' });
    const r = await app.ended(runId, 30_000);
    expect(r).toMatchObject({ status: 'failed', error_kind: 'chain_mismatch' });
    const timeline = JSON.stringify(await app.api(`/api/history/runs/${runId}/timeline`));
    expect(timeline).toContain('anvil: chain_id 31337 is configured, but its providers serve chain 999');
    expect((await app.api(`/api/history/txs?run_id=${runId}`)).items).toEqual([]);
    expect(await anvil.rpc<string>('eth_getTransactionCount', [OPS.address, 'pending'])).toBe(nonceBefore);
    // Nothing but the chain id was ever asked of it, once for the process.
    expect([...proxy.counts]).toEqual([['eth_chainId', 1]]);

    const [row] = (await app.api('/api/relayers')).items as Json[];
    expect(row).toMatchObject({ relayer: 'ops', balance_wei: null, balance_error: 'anvil: chain_id 31337 is configured, but its providers serve chain 999' });
    const metrics = (await app.api('/metrics')).text as string;
    expect(metrics).toMatch(/^chainflow_provider_up\{network="anvil",provider="1"\} 0$/m);

    const log = app.server.log();
    expect(log).toMatch(/provider serves another chain/);
    expect(log).toMatch(/"network":"anvil","provider":1,"chain_id":31337,"provider_chain_id":"999"/);
    expect(log).not.toContain('MISMATCH-SECRET-KEY');
  }, 60_000);
});
