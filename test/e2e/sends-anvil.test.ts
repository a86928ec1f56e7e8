/**
 * Sends end to end (issue #11, CONTRACT 8.5): a real anvil node, the real `chainflow start` process on a real SQLite
 * file and on PostgreSQL (CONTRACT 10), webhooks in, and the history API, the spend API and the chain compared to the wei. A webhook workflow pays
 * out through a relayer until the gas budget cap refuses the next send (nothing broadcast for it); a contract that
 * reverts on chain settles `reverted` with its gas in the reverted loss; a transaction stuck with automine off is
 * replaced with raised fees and the replacement lands.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { engineClient, minedNonce } from '../support/engine-client';
import { ANVIL_ACCOUNTS, REVERT_ON_CHAIN_CODE, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { chainflowAsync, eventually, startProcessServer, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';
import { e2eConfigHead } from '../support/e2e-config';

const HOOK_SECRET = 'hook-secret-7c1d2e';
const API_TOKEN = 'api-token-5e8b3a90';
const OPS = ANVIL_ACCOUNTS[1]!;
const STUCK = ANVIL_ACCOUNTS[2]!;
const LOSER = ANVIL_ACCOUNTS[3]!;
const RECIPIENT = '0x00000000000000000000000000000000000Fee01';
const REVERTER = '0x00000000000000000000000000000000000dead1';
/** A little under four plain transfers at anvil's ~2 gwei: the cap is reached after a few payouts. */
const CAP_WEI = 150_000n * 10n ** 9n;
const PAYOUT_WEI = 10n ** 15n;

interface Json { [key: string]: any }

function config(storage: string): string {
  return `${e2eConfigHead(['hook: { env: HOOK_SECRET }'], storage)}networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ], replace_after: 3s }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
  stuck: { network: anvil, signer: { env: STUCK_KEY } }
  loser: { network: anvil, signer: { env: LOSER_KEY } }
budgets:
  gas_cap: { window: 24h, max_gas_spend: ${CAP_WEI}, scope: { relayers: [ops] } }
workflows:
  payouts:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    budgets: [gas_cap]
    steps:
      - { id: pay, type: send, relayer: ops, to: "\${{ trigger.payload.to }}", value: "\${{ trigger.payload.amount }}" }
  doomed:
    trigger: { kind: manual }
    steps:
      - { id: call, type: send, relayer: loser, to: "${REVERTER}", value: "0" }
  slow:
    trigger: { kind: manual }
    steps:
      - { id: pay, type: send, relayer: stuck, to: "${RECIPIENT}", value: "12345", timeout: 5m }
`;
}

describe.each(E2E_STORAGES)('sends on a real chain, end to end, on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let dir: string;
  let server: ProcessServer;
  const client = engineClient(() => server.baseUrl, { token: API_TOKEN, hookSecret: HOOK_SECRET });
  const { api, run, ended, sendsOf } = client;
  const hook = (payload: unknown): Promise<string> => client.hook('payouts', payload);
  const nonceOf = (address: string): Promise<number> => minedNonce(anvil, address);

  const ENV = (): Record<string, string> => ({
    HOOK_SECRET, API_TOKEN, RPC: anvil.url, OPS_KEY: OPS.privateKey, STUCK_KEY: STUCK.privateKey, LOSER_KEY: LOSER.privateKey,
  });

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    await anvil.setCode(REVERTER, REVERT_ON_CHAIN_CODE);
    dir = makeTempDir('chainflow-sends-');
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(storageSection(database)));
    server = await startProcessServer(dir, ENV());
  }, 60_000);
  afterAll(() => tearDownSuite({ server, stops: [anvil], database, dir }));

  it('pays out through a relayer until the gas budget cap refuses the next send; history, spend and chain agree to the wei', async () => {
    const before = await anvil.balance(OPS.address);
    const nonceBefore = await nonceOf(OPS.address);
    const paid: Json[] = [];
    let refused: Json | undefined;
    for (let i = 0; i < 12 && !refused; i++) {
      const r = await ended(await hook({ to: RECIPIENT, amount: String(PAYOUT_WEI), n: i }));
      if (r.status === 'succeeded') paid.push(r);
      else refused = r;
    }
    expect(refused).toMatchObject({ status: 'failed', error_kind: 'budget_exceeded' });
    expect(paid.length).toBeGreaterThanOrEqual(2);
    // Nothing was broadcast for the refused run: no send, and the relayer's chain nonce moved once per payout.
    expect(await sendsOf(refused!.run_id)).toEqual([]);
    expect(await nonceOf(OPS.address)).toBe(nonceBefore + paid.length);

    const sends = (await Promise.all(paid.map((r) => sendsOf(r.run_id)))).flat();
    expect(sends).toHaveLength(paid.length);
    for (const s of sends) expect(s).toMatchObject({ status: 'settled', outcome: 'confirmed', relayer: 'ops', value_wei: String(PAYOUT_WEI) });

    const spend = (await api('GET', '/api/spend?relayer=ops&limit=500')).body;
    expect(spend.entries.map((e: Json) => e.tx_hash).sort()).toEqual(sends.map((s) => s.tx_hash).sort());
    const gas = BigInt(spend.summary.total.gas_spend_wei);
    const value = BigInt(spend.summary.total.value_wei);
    expect(value).toBe(PAYOUT_WEI * BigInt(paid.length));
    // The cap was reached by recorded spend, and not before the last payout.
    expect(gas).toBeGreaterThanOrEqual(CAP_WEI);
    const lastGas = BigInt(spend.entries[0].gas_spend_wei);
    expect(gas - lastGas).toBeLessThan(CAP_WEI);
    // The chain: what the relayer lost is exactly the ledger's gas plus the value moved.
    expect(before - (await anvil.balance(OPS.address))).toBe(gas + value);
    for (const s of sends) {
      const receipt = await anvil.rpc<{ gasUsed: string; effectiveGasPrice: string }>('eth_getTransactionReceipt', [s.tx_hash]);
      const entry = spend.entries.find((e: Json) => e.tx_hash === s.tx_hash);
      expect(BigInt(entry.gas_spend_wei)).toBe(BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
    }
  }, 120_000);

  it('chainflow test: the send is simulated and stays queued, nothing is broadcast', async () => {
    const nonce = await nonceOf(OPS.address);
    const out = await chainflowAsync(['test', 'payouts', '--input', JSON.stringify({ to: RECIPIENT, amount: '5' }), '--json'], dir, ENV());
    expect(out.status).toBe(0);
    const runId = JSON.parse(out.stdout).run_id as string;
    const [send] = await sendsOf(runId);
    expect(send).toMatchObject({ status: 'queued', session: 'test', outcome: null, tx_hash: null });
    expect(await nonceOf(OPS.address)).toBe(nonce);
  }, 60_000);

  it('a send that passes simulation and reverts on chain settles reverted, its gas in the reverted loss', async () => {
    const before = await anvil.balance(LOSER.address);
    const started = await api('POST', '/api/workflows/doomed/runs', { input: {} });
    expect(started.status).toBe(202);
    const r = await ended(started.body.run_id);
    expect(r).toMatchObject({ status: 'failed', error_kind: 'reverted' });
    const [send] = await sendsOf(r.run_id);
    expect(send).toMatchObject({ status: 'settled', outcome: 'reverted' });
    const timeline = (await api('GET', `/api/history/runs/${r.run_id}/timeline`)).body;
    expect(JSON.stringify(timeline)).toContain('"ok":true');
    const spend = (await api('GET', '/api/spend?relayer=loser')).body;
    expect(spend.entries).toEqual([expect.objectContaining({ tx_hash: send.tx_hash, reverted: true, value_wei: '0' })]);
    expect(spend.summary.total.reverted_gas_wei).toBe(spend.summary.total.gas_spend_wei);
    expect(before - (await anvil.balance(LOSER.address))).toBe(BigInt(spend.summary.total.reverted_gas_wei));
  }, 60_000);

  it('a transaction stuck with automine off is replaced with raised fees after replace_after, and the replacement lands', async () => {
    await anvil.rpc('evm_setAutomine', [false]);
    try {
      const started = await api('POST', '/api/workflows/slow/runs', { input: {} });
      const runId: string = started.body.run_id;
      await eventually(async () => ((await run(runId))?.status === 'waiting' ? true : undefined), 15_000, 'the run to wait for its send');
      const [first] = await sendsOf(runId);
      // A send is journaled before it is broadcast: the node may learn of a hash a moment after the history shows it.
      const known = (hash: string): Promise<{ maxFeePerGas: string; nonce: string }> => eventually(
        async () => (await anvil.rpc<{ maxFeePerGas: string; nonce: string } | null>('eth_getTransactionByHash', [hash])) ?? undefined,
        10_000, `the node to know ${hash}`,
      );
      const firstTx = await known(first.tx_hash);
      // Within replace_after (3 s) plus a few polls, a replacement at the same nonce takes its place.
      const replacement = await eventually(async () => {
        const [s] = await sendsOf(runId);
        return s && s.tx_hash !== first.tx_hash ? s : undefined;
      }, 20_000, 'a replacement transaction');
      const replacementTx = await known(replacement.tx_hash);
      expect(replacementTx.nonce).toBe(firstTx.nonce);
      expect(BigInt(replacementTx.maxFeePerGas)).toBeGreaterThanOrEqual((BigInt(firstTx.maxFeePerGas) * 1125n) / 1000n);
      await anvil.rpc('evm_mine');
      await anvil.rpc('evm_setAutomine', [true]);
      const r = await ended(runId, 20_000);
      expect(r.status).toBe('succeeded');
      const [settled] = await sendsOf(runId);
      expect(settled).toMatchObject({ status: 'settled', outcome: 'confirmed', tx_hash: replacement.tx_hash });
      expect(await anvil.rpc('eth_getTransactionReceipt', [first.tx_hash])).toBeNull();
      expect(await anvil.balance(RECIPIENT)).toBeGreaterThanOrEqual(12345n);
      const metrics = await (await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${API_TOKEN}` } })).text();
      expect(metrics).toMatch(/chainflow_send_replacements_total [1-9]/);
      expect(metrics).toMatch(/chainflow_budget_refusals_total 1/);
      expect(metrics).toMatch(/chainflow_sends_total\{outcome="reverted"\} 1/);
    } finally {
      await anvil.rpc('evm_setAutomine', [true]);
    }
  }, 90_000);
});
