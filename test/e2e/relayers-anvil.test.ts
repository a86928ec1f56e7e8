/**
 * Relayers end to end (issue 12, CONTRACT 9): a real anvil chain, the real server (openRoot + startServer on a real
 * SQLite file, and on PostgreSQL: CONTRACT 10) and the real CLI (`bin/run.js`, built) on the same database. Balances
 * and low flags are checked against the chain itself; a top-up's ledger entry against the node's receipt, to the wei.
 * The top-ups (audit trail, ledger) and the rows' funding plan run on both stores; the refusals of bad input (before
 * anything is stored) and the balance gauges (read from the chain) on SQLite only.
 *
 * The steps run in order on one chain and one database: top-ups first (through the CLI, another process), then
 * the address book, which then reads every balance for the first time (the server caches them for 15 s).
 */
import { ANVIL_ACCOUNTS, ANVIL_CHAIN_ID, refusingUrl, startAnvil, startSilentServer, type Anvil, type SilentServer } from '../support/anvil';
import { assertBuilt, chainflow, hasStackTrace, type CliResult } from '../support/cli';
import type { FreshPostgres } from '../support/postgres';
import { startTestServer, type TestServer } from '../support/server';
import { E2E_STORAGES, itOnFirstStorage } from '../support/stores';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const ETHER = 10n ** 18n;
const OPS = ANVIL_ACCOUNTS[5]!;
const KEEPER = ANVIL_ACCOUNTS[6]!;
const PAUPER = ANVIL_ACCOUNTS[7]!;
const OFFLINE = ANVIL_ACCOUNTS[8]!;
const PAUPER_BALANCE = 10n ** 15n;
/** The server's bound of one balance read (DEFAULT_BALANCE_READ_MS); a row answers within it. */
const READ_BOUND_MS = 3000;
/** Slack of "answers within" checks on a loaded machine (the figure itself is measured by `npm run bench -- --relayers`). */
const SLACK_MS = 2000;

interface ChainReceipt {
  gasUsed: string;
  effectiveGasPrice: string;
  status: string;
}

describe.each(E2E_STORAGES)('relayers on anvil: address book, top-ups, audit trail, metrics, on %s', (storageName, freshStorage) => {
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let hanging: SilentServer;
  let srv: TestServer;
  let env: Record<string, string>;
  let opsStart: bigint;
  let confirmed: Json;

  /**
   * The CLI, in a child process. spawnSync holds this process's event loop (and the server's) still; the pause after
   * lets the server close the keep-alive connections that went idle meanwhile before the next request picks one.
   */
  const cli = async (...args: string[]): Promise<CliResult> => {
    const result = chainflow(args, { cwd: srv.dir, env: { ...env, CHAINFLOW_CONFIG: `${srv.dir}/chainflow.yaml` } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    return result;
  };
  const api = async (path: string): Promise<Json> => {
    const res = await srv.get(path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const receipt = (hash: string): Promise<ChainReceipt> => anvil.rpc<ChainReceipt>('eth_getTransactionReceipt', [hash]);
  const expectNoSecret = (text: string): void => {
    for (const secret of Object.values(env)) {
      expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain(secret.replace(/^0x/, '').toLowerCase());
    }
    expect(text).not.toMatch(/https?:\/\/127\.0\.0\.1/);
  };

  beforeAll(async () => {
    assertBuilt();
    [anvil, hanging] = await Promise.all([startAnvil(), startSilentServer('/v3/HANGING-SECRET-KEY')]);
    await anvil.setBalance(PAUPER.address, PAUPER_BALANCE);
    env = {
      RPC: anvil.url, DEAD_RPC: await refusingUrl('/v3/REFUSED-SECRET-KEY'), HANGING_RPC: hanging.url,
      OPS_KEY: OPS.privateKey, KEEPER_KEY: KEEPER.privateKey, PAUPER_KEY: PAUPER.privateKey, OFFLINE_KEY: OFFLINE.privateKey,
    };
    database = await freshStorage();
    srv = await startTestServer({
      env,
      config: {
        ...(database ? { storage: { url: database.url } } : {}),
        server: { metrics_public: true },
        networks: {
          anvil: { chain_id: ANVIL_CHAIN_ID, rpc: [{ env: 'RPC' }] },
          anvil_down: { chain_id: ANVIL_CHAIN_ID, rpc: [{ env: 'DEAD_RPC' }, { env: 'HANGING_RPC' }] },
        },
        relayers: {
          ops: { network: 'anvil', signer: { env: 'OPS_KEY' }, low_balance: '1 ether' },
          keeper: { network: 'anvil', signer: { env: 'KEEPER_KEY' }, low_balance: '20000 ether' },
          pauper: { network: 'anvil', signer: { env: 'PAUPER_KEY' }, low_balance: '0.01 ether' },
          offline: { network: 'anvil_down', signer: { env: 'OFFLINE_KEY' }, low_balance: '1 ether' },
        },
      },
    });
    opsStart = await anvil.balance(OPS.address);
  });

  afterAll(async () => {
    await srv?.close();
    await database?.drop();
    await hanging?.close();
    await anvil?.stop();
  });

  it('chainflow relayers topup: a signed transfer, its ledger entry under relayers.topup attributed to the funding relayer, its audit row', async () => {
    const keeperBefore = await anvil.balance(KEEPER.address);
    const res = await cli('relayers', 'topup', '--from', 'ops', '--to', 'keeper', '--amount', '0.5ether', '--by', 'alice', '--json');
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    confirmed = JSON.parse(res.stdout);
    expect(confirmed).toMatchObject({
      by: 'alice', from: 'ops', to: 'keeper', network: 'anvil', chain_id: ANVIL_CHAIN_ID, amount_wei: (ETHER / 2n).toString(), outcome: 'confirmed',
      error: null, from_address: OPS.address, to_address: KEEPER.address, run_id: confirmed.topup_id, explorer_url: null,
    });

    // The chain: B got the amount; A paid it and the receipt's gas.
    const r = await receipt(confirmed.tx_hash);
    expect(BigInt(r.status)).toBe(1n);
    const gas = BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
    expect(await anvil.balance(KEEPER.address)).toBe(keeperBefore + ETHER / 2n);
    expect(opsStart - (await anvil.balance(OPS.address))).toBe(ETHER / 2n + gas);

    // The ledger: one entry, under relayers.topup, attributed to ops, from that receipt.
    const spend = await api('/api/spend?workflow=relayers.topup');
    expect(spend.entries).toEqual([expect.objectContaining({
      workflow: 'relayers.topup', relayer: 'ops', network: 'anvil', chain_id: ANVIL_CHAIN_ID, tx_hash: confirmed.tx_hash, run_id: confirmed.topup_id,
      gas_used: BigInt(r.gasUsed).toString(), effective_gas_price: BigInt(r.effectiveGasPrice).toString(), gas_spend_wei: gas.toString(),
      value_wei: (ETHER / 2n).toString(), reverted: false,
    })]);

    // The audit trail, over the API and the CLI alike; the run in the explorer.
    const trail = await api('/api/relayers/topups');
    expect(trail).toEqual({ items: [confirmed], cursor: null, has_more: false });
    expect(JSON.parse((await cli('relayers', 'history', '--json')).stdout)).toEqual(trail);
    expect((await api(`/api/history/runs?run_id=${confirmed.topup_id}`)).items).toEqual([expect.objectContaining({
      workflow: 'relayers.topup', status: 'succeeded', relayers: ['ops'], tx_hashes: [confirmed.tx_hash],
    })]);
    expectNoSecret(res.stdout);
  });

  it('a top-up that fails (insufficient funds): exit 1 saying why, an audit row, no ledger entry, nothing moved', async () => {
    const before = [await anvil.balance(PAUPER.address), await anvil.balance(KEEPER.address)];
    const res = await cli('relayers', 'topup', '--from', 'pauper', '--to', 'keeper', '--amount', '1 ether', '--by', 'bob');
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/^Error: top-up \S+ failed: .*insufficient funds/im);
    expect(hasStackTrace(res.stderr + res.stdout)).toBe(false);
    expectNoSecret(res.stderr + res.stdout);
    expect([await anvil.balance(PAUPER.address), await anvil.balance(KEEPER.address)]).toEqual(before);

    const failed = (await api('/api/relayers/topups?outcome=failed')).items;
    expect(failed).toEqual([expect.objectContaining({ by: 'bob', from: 'pauper', to: 'keeper', amount_wei: ETHER.toString(), outcome: 'failed', tx_hash: null })]);
    expect(failed[0].error).toMatch(/insufficient funds/i);
    expect((await api('/api/spend?relayer=pauper')).summary.total.tx_count).toBe(0);
    expect((await api('/api/relayers/topups')).items.map((t: Json) => t.topup_id)).toEqual([failed[0].topup_id, confirmed.topup_id]);
  });

  itOnFirstStorage(storageName)('bad input exits 2 naming the flag and records nothing', async () => {
    for (const [args, message] of [
      [['--from', 'ops', '--to', 'keeper', '--amount', '0.5eth'], /^Error: --amount: is not an amount/],
      [['--from', 'ops', '--to', 'offline', '--amount', '1'], /^Error: --to: relayer 'offline' is on network 'anvil_down'/],
      [['--from', 'nobody', '--to', 'keeper', '--amount', '1'], /^Error: --from: no relayer named 'nobody'/],
      [['--from', 'ops', '--amount', '1'], /^Error: .*--to/],
    ] as const) {
      const res = await cli('relayers', 'topup', ...args);
      expect(res.status).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(hasStackTrace(res.stderr)).toBe(false);
    }
    expect((await api('/api/relayers/topups')).items).toHaveLength(2);
    expect((await cli('relayers', 'history', '--outcome', 'lost')).status).toBe(2);
    for (const [path, error] of [
      ['/api/relayers?limit=0', /^limit: /], ['/api/relayers?cursor=forged', /^cursor: /], ['/api/relayers?relayer=ops', /^relayer: unknown parameter/],
      ['/api/relayers/topups?outcome=lost', /^outcome: must be one of/], ['/api/relayers/topups?since=yesterday', /^since: /],
    ] as const) {
      const res = await srv.get(path);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(error);
    }
  });

  it('GET /api/relayers: live balances and low flags as the chain holds them, the funding plan from the ledger, a down network in its own row', async () => {
    const started = Date.now();
    const page = await api('/api/relayers');
    expect(Date.now() - started).toBeLessThan(READ_BOUND_MS + SLACK_MS);
    expect(page).toMatchObject({ cursor: null, has_more: false });
    expect(page.items.map((r: Json) => r.relayer)).toEqual(['keeper', 'offline', 'ops', 'pauper']);
    const rows = new Map<string, Json>(page.items.map((r: Json) => [r.relayer, r]));

    const r = await receipt(confirmed.tx_hash);
    const gas = BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
    const opsBalance = await anvil.balance(OPS.address);
    // ops' only spend is minutes old: its burn is taken over a day, so 7 days ahead is 7 times it.
    expect(rows.get('ops')).toEqual({
      relayer: 'ops', network: 'anvil', chain_id: ANVIL_CHAIN_ID, address: OPS.address, balance_wei: opsBalance.toString(), balance_error: null,
      low_balance: false, low_balance_threshold_wei: ETHER.toString(), recent_gas_spend_wei: gas.toString(),
      funding_estimate_wei: (7n * gas).toString(), shortfall_wei: '0', explorer_url: null,
    });
    const keeperBalance = await anvil.balance(KEEPER.address);
    expect(rows.get('keeper')).toMatchObject({
      address: KEEPER.address, balance_wei: keeperBalance.toString(), low_balance: true, recent_gas_spend_wei: '0',
      funding_estimate_wei: '0', shortfall_wei: (20_000n * ETHER - keeperBalance).toString(),
    });
    expect(rows.get('pauper')).toMatchObject({ balance_wei: PAUPER_BALANCE.toString(), low_balance: true, shortfall_wei: (10n ** 16n - PAUPER_BALANCE).toString() });

    // Every provider of anvil_down fails (one refuses, one never answers): the reason, never a URL; the rest answers.
    const offline = rows.get('offline');
    expect(offline).toMatchObject({
      network: 'anvil_down', address: OFFLINE.address, balance_wei: null, low_balance: null, shortfall_wei: null,
      low_balance_threshold_wei: ETHER.toString(), recent_gas_spend_wei: '0', funding_estimate_wei: '0',
    });
    // Both providers fail; which word comes first depends on the machine's load: each provider's own failure, or the
    // read's bound (3 s) running out while the second still hangs.
    expect(offline.balance_error).toMatch(/^anvil_down: (no provider answered \(provider 1: connection refused; provider 2: timed out after \d+ ms\)|no answer within \d+ ms)$/);
    expectNoSecret(JSON.stringify(page));

    // The CLI reads the same rows (its own process, its own reads).
    // A provider's timeout in the reason is that read's own bound (the server may have checked the provider at start,
    // with the sends' longer bound): the rows are compared without it.
    // (either word for a down network, as above: which one a process sees depends on the machine's load)
    const bounds = (text: string): string => text.replace(/no answer within \d+ ms|no provider answered \(provider 1: connection refused; provider 2: timed out( after \d+ ms)?\)/g, 'down');
    const listed = JSON.parse((await cli('relayers', '--json')).stdout);
    expect(JSON.parse(bounds(JSON.stringify(listed)))).toEqual(JSON.parse(bounds(JSON.stringify(page))));
    const table = await cli('relayers');
    expect(table.stdout).toContain(`keeper   anvil       ${KEEPER.address}`);
    expect(table.stdout).toMatch(/offline +anvil_down +0x[0-9a-fA-F]{40} +unavailable: anvil_down: no provider answered/);
  });

  itOnFirstStorage(storageName)('/metrics: a balance and a low flag per relayer, and a down network says so', async () => {
    await api('/api/relayers');
    const res = await srv.get('/metrics');
    expect(res.status).toBe(200);
    const line = (name: string, relayer: string, network = 'anvil'): string | undefined =>
      res.text.split('\n').find((l) => l.startsWith(`${name}{relayer="${relayer}",network="${network}"} `))?.split(' ')[1];
    expect(line('chainflow_relayer_low_balance', 'keeper')).toBe('1');
    expect(line('chainflow_relayer_low_balance', 'ops')).toBe('0');
    expect(line('chainflow_relayer_low_balance', 'pauper')).toBe('1');
    expect(Number(line('chainflow_relayer_balance_ether', 'pauper'))).toBe(0.001);
    expect(Number(line('chainflow_relayer_balance_ether', 'ops'))).toBeCloseTo(Number(await anvil.balance(OPS.address)) / 1e18, 6);
    expect(line('chainflow_relayer_low_balance_threshold_ether', 'keeper')).toBe('20000');
    expect(line('chainflow_relayer_balance_up', 'ops')).toBe('1');
    expect(line('chainflow_relayer_balance_up', 'offline', 'anvil_down')).toBe('0');
    expect(line('chainflow_relayer_balance_ether', 'offline', 'anvil_down')).toBeUndefined();
    expect(line('chainflow_relayer_low_balance', 'offline', 'anvil_down')).toBeUndefined();
    expectNoSecret(res.text);
  });
});
