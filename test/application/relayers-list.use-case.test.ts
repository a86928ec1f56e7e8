import type { ChainflowConfig } from '../../src/application/config';
import type { ChainReader, ChainTarget } from '../../src/application/ports/chain';
import { ListRelayers } from '../../src/application/relayers/list-relayers.use-case';
import { RecentGasSpend } from '../../src/application/relayers/recent-gas-spend';
import { RelayerBalances } from '../../src/application/relayers/relayer-balances';
import { RelayerBook } from '../../src/application/relayers/relayer-book';
import { RelayerGauges } from '../../src/application/relayers/relayer-gauges.use-case';
import type { RelayerItem } from '../../src/application/relayers/relayer-items';
import { CursorCodec } from '../../src/domain/cursor';
import { InvalidInputError } from '../../src/domain/errors';
import { ExplorerLinks } from '../../src/domain/explorer';
import { Redactor } from '../../src/domain/redactor';
import { anEntry } from '../contract/spend.contract';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryChain } from '../fakes/in-memory-chain';
import { InMemorySpendLedger } from '../fakes/in-memory-spend';
import { HOUR, T0 } from '../mothers/journal-events';
import { ANVIL_ACCOUNTS } from '../support/anvil';

const ETHER = 10n ** 18n;
const DAY = 24 * HOUR;
const [OPS, KEEPER, TREASURY] = [ANVIL_ACCOUNTS[1]!, ANVIL_ACCOUNTS[2]!, ANVIL_ACCOUNTS[3]!];
const SEPOLIA_RPC = 'https://sepolia.rpc.example/v3/sepolia-project-key';
const HANGING_RPC = 'https://hanging.rpc.example/v3/hanging-project-key';
const REFUSING_RPC = 'https://refusing.rpc.example/v3/refusing-project-key';
const READ_BOUND_MS = 300;
/** A hanging provider's per-call timeout: far above the read bound, so that waiting on it shows whatever the load. */
const HANG_MS = 3000;
/** Slack of "answers within" checks on a loaded machine: well below HANG_MS - READ_BOUND_MS. */
const SLACK_MS = 1500;

const config: ChainflowConfig = {
  server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false },
  storage: { url: 'sqlite::memory:' },
  networks: new Map([
    ['sepolia', { name: 'sepolia', chainId: 11155111, nativeSymbol: 'ETH', rpc: [SEPOLIA_RPC], replaceAfterMs: 60_000, confirmations: 1 }],
    ['stuck', { name: 'stuck', chainId: 11155111, nativeSymbol: 'ETH', rpc: [REFUSING_RPC, HANGING_RPC], replaceAfterMs: 60_000, confirmations: 1 }],
  ]),
  relayers: new Map([
    ['ops', { name: 'ops', network: 'sepolia', signer: OPS.privateKey, lowBalanceWei: ETHER }],
    ['keeper', { name: 'keeper', network: 'sepolia', signer: KEEPER.privateKey, lowBalanceWei: ETHER / 10n }],
    ['treasury', { name: 'treasury', network: 'sepolia', signer: TREASURY.privateKey }],
    ['watcher', { name: 'watcher', network: 'sepolia' }],
    ['stuck-keeper', { name: 'stuck-keeper', network: 'stuck', signer: KEEPER.privateKey, lowBalanceWei: ETHER }],
  ]),
  budgets: new Map(),
  workflows: new Map(),
  secretValues: [SEPOLIA_RPC, HANGING_RPC, REFUSING_RPC, OPS.privateKey, KEEPER.privateKey, TREASURY.privateKey],
};

/** The chain's balance reads, counted. */
class CountingReader implements Pick<ChainReader, 'balance'> {
  reads = 0;
  constructor(private readonly chain: InMemoryChain) {}
  balance(target: ChainTarget, address: string): Promise<bigint> {
    this.reads += 1;
    return this.chain.balance(target, address);
  }
}

describe('ListRelayers: the address book', () => {
  let chain: InMemoryChain;
  let reader: CountingReader;
  let spend: InMemorySpendLedger;
  let clock: FixedClock;
  let book: RelayerBook;
  let list: ListRelayers;

  beforeEach(() => {
    chain = new InMemoryChain({ chainId: 11155111 })
      .addAccount(OPS.privateKey, OPS.address, 3n * ETHER)
      .addAccount(KEEPER.privateKey, KEEPER.address, ETHER / 20n)
      .addAccount(TREASURY.privateKey, TREASURY.address, 0n)
      .setProvider(REFUSING_RPC, 'refuse')
      .setProvider(HANGING_RPC, 'hang');
    // Each provider call bounded at HANG_MS, well above the read bound: a hanging provider outlasts the bound.
    reader = new CountingReader(chain.client({ timeoutMs: HANG_MS, retryRounds: 1 }));
    spend = new InMemorySpendLedger();
    clock = new FixedClock(T0);
    const redactor = new Redactor(config.secretValues);
    const balances = new RelayerBalances(reader, clock, redactor, { readTimeoutMs: READ_BOUND_MS });
    book = new RelayerBook(config, chain, balances, new RecentGasSpend(config, spend, clock), redactor);
    list = new ListRelayers(book, new CursorCodec('relayers-test-cursor-key'), new ExplorerLinks(), redactor, clock);
  });

  const byName = async (query: Record<string, unknown> = {}): Promise<Map<string, RelayerItem>> =>
    new Map((await list.execute(query)).items.map((r) => [r.relayer, r]));

  it('lists every configured relayer by name: address from its signer, live balance, low flag, threshold, explorer link', async () => {
    const page = await list.execute({});
    expect(page.items.map((r) => r.relayer)).toEqual(['keeper', 'ops', 'stuck-keeper', 'treasury', 'watcher']);
    expect(page).toMatchObject({ cursor: null, has_more: false });
    const rows = new Map(page.items.map((r) => [r.relayer, r]));
    expect(rows.get('ops')).toEqual({
      relayer: 'ops', network: 'sepolia', chain_id: 11155111, address: OPS.address, balance_wei: (3n * ETHER).toString(), balance_error: null,
      low_balance: false, low_balance_threshold_wei: ETHER.toString(), recent_gas_spend_wei: '0', funding_estimate_wei: '0', shortfall_wei: '0',
      explorer_url: `https://sepolia.etherscan.io/address/${OPS.address}`,
    });
    expect(rows.get('keeper')).toMatchObject({
      address: KEEPER.address, balance_wei: (ETHER / 20n).toString(), low_balance: true, shortfall_wei: (ETHER / 20n).toString(),
    });
    // No threshold configured: never low; an empty relayer with no burn is short of nothing.
    expect(rows.get('treasury')).toMatchObject({ balance_wei: '0', low_balance: false, low_balance_threshold_wei: null, shortfall_wei: '0' });
  });

  it('never shows a signer key or a provider URL', async () => {
    const text = JSON.stringify(await list.execute({}));
    for (const secret of config.secretValues) {
      expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain(secret.replace(/^0x/, '').toLowerCase());
    }
    expect(text).not.toMatch(/https?:\/\/[^"]*rpc/);
  });

  it('a relayer without a signer: no address, its balance unknown and why; the rest of the row answers', async () => {
    expect((await byName()).get('watcher')).toEqual({
      relayer: 'watcher', network: 'sepolia', chain_id: 11155111, address: null, balance_wei: null,
      balance_error: 'no signer configured: the address is unknown', low_balance: null, low_balance_threshold_wei: null,
      recent_gas_spend_wei: '0', funding_estimate_wei: '0', shortfall_wei: null, explorer_url: null,
    });
  });

  it('recent gas spend: the ledger\'s gas of the last 7 days attributed to the relayer, any workflow, top-ups included; projected 7 days ahead', async () => {
    await spend.append([
      anEntry({ stepRunId: 'a.1', relayer: 'ops', recordedAt: T0 - 6 * DAY, gasSpendWei: 3n * 10n ** 15n }),
      anEntry({ stepRunId: 'a.2', relayer: 'ops', workflow: 'relayers.topup', recordedAt: T0 - 2 * DAY, gasSpendWei: 10n ** 15n, valueWei: ETHER }),
      anEntry({ stepRunId: 'a.3', relayer: 'ops', recordedAt: T0 - 8 * DAY, gasSpendWei: 5n * ETHER }),
      anEntry({ stepRunId: 'b.1', relayer: 'keeper', recordedAt: T0 - 2 * DAY, gasSpendWei: 2n * 10n ** 15n, reverted: true }),
      anEntry({ stepRunId: 'c.1', relayer: 'retired', recordedAt: T0 - HOUR, gasSpendWei: ETHER }),
    ]);
    const rows = await byName();
    // ops: 4e15 over the 6 days since its oldest entry of the window, projected over 7 days, rounded up.
    const opsEstimate = (4n * 10n ** 15n * 7n + 5n) / 6n;
    expect(rows.get('ops')).toMatchObject({ recent_gas_spend_wei: (4n * 10n ** 15n).toString(), funding_estimate_wei: opsEstimate.toString() });
    // keeper (balance 0.05, threshold 0.1): its reverted gas counts; 2e15 over 2 days → 7e15 ahead.
    expect(rows.get('keeper')).toMatchObject({
      recent_gas_spend_wei: (2n * 10n ** 15n).toString(), funding_estimate_wei: (7n * 10n ** 15n).toString(),
      shortfall_wei: (7n * 10n ** 15n + ETHER / 10n - ETHER / 20n).toString(),
    });
    expect(rows.get('treasury')).toMatchObject({ recent_gas_spend_wei: '0', funding_estimate_wei: '0' });
  });

  it('balances are read at most once per 15 s per address, and concurrent asks share one read', async () => {
    const sepolia = { network: 'sepolia' };
    await Promise.all([list.execute(sepolia), list.execute(sepolia), list.execute({ ...sepolia, limit: '1' })]);
    // ops, keeper and treasury (watcher has no address).
    expect(reader.reads).toBe(3);
    clock.advance(14_999);
    await list.execute(sepolia);
    expect(reader.reads).toBe(3);
    chain.setBalance(OPS.address, 7n);
    clock.advance(1);
    expect((await byName(sepolia)).get('ops')!.balance_wei).toBe('7');
    expect(reader.reads).toBe(6);
  });

  it('a network whose providers are all down: balance_error says why (no URL) within the read bound; the row and the others still answer', async () => {
    const started = Date.now();
    const rows = await byName();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(READ_BOUND_MS - 10);
    expect(elapsed).toBeLessThan(READ_BOUND_MS + SLACK_MS);
    const stuck = rows.get('stuck-keeper')!;
    expect(stuck).toMatchObject({
      network: 'stuck', address: KEEPER.address, balance_wei: null, low_balance: null, shortfall_wei: null,
      low_balance_threshold_wei: ETHER.toString(), recent_gas_spend_wei: '0', funding_estimate_wei: '0',
    });
    expect(stuck.balance_error).toBe(`stuck: no answer within ${READ_BOUND_MS} ms`);
    expect(rows.get('ops')!.balance_wei).toBe((3n * ETHER).toString());

    // The read went on past the bound; once every provider has failed, its reason is what the next ask gets.
    await new Promise((r) => setTimeout(r, HANG_MS + 200));
    const again = (await byName()).get('stuck-keeper')!;
    expect(again.balance_error).toBe(`stuck: no provider answered (provider 1: connection refused; provider 2: timed out after ${HANG_MS} ms)`);
    expect(again.balance_error).not.toMatch(/rpc\.example|https?:/);
  });

  it('pages by name with the list conventions; the network filter; bad parameters name themselves', async () => {
    const first = await list.execute({ limit: '2' });
    expect(first.items.map((r) => r.relayer)).toEqual(['keeper', 'ops']);
    expect(first.has_more).toBe(true);
    const second = await list.execute({ limit: '2', cursor: first.cursor! });
    expect(second.items.map((r) => r.relayer)).toEqual(['stuck-keeper', 'treasury']);
    const third = await list.execute({ limit: '2', cursor: second.cursor! });
    expect(third).toMatchObject({ cursor: null, has_more: false });
    expect(third.items.map((r) => r.relayer)).toEqual(['watcher']);
    expect((await list.execute({ network: 'stuck' })).items.map((r) => r.relayer)).toEqual(['stuck-keeper']);
    expect((await list.execute({ network: 'nowhere' })).items).toEqual([]);

    await expect(list.execute({ cursor: 'forged.cursor' })).rejects.toThrow(new InvalidInputError('cursor', 'malformed or tampered cursor'));
    await expect(list.execute({ limit: '0' })).rejects.toThrow(/^limit: /);
    await expect(list.execute({ relayer: 'ops' })).rejects.toThrow(/^relayer: unknown parameter/);
  });
});

describe('RelayerGauges: metrics never wait on a chain', () => {
  it('answers from cached balances at once; a missing or stale one is read in the background for the next scrape', async () => {
    const chain = new InMemoryChain({ chainId: 11155111 })
      .addAccount(OPS.privateKey, OPS.address, 3n * ETHER)
      .addAccount(KEEPER.privateKey, KEEPER.address, ETHER / 20n)
      .setProvider(REFUSING_RPC, 'refuse')
      .setProvider(HANGING_RPC, 'hang');
    const reader = new CountingReader(chain.client({ timeoutMs: HANG_MS, retryRounds: 1 }));
    const clock = new FixedClock(T0);
    const redactor = new Redactor(config.secretValues);
    const book = new RelayerBook(config, chain, new RelayerBalances(reader, clock, redactor, { readTimeoutMs: READ_BOUND_MS }),
      new RecentGasSpend(config, new InMemorySpendLedger(), clock), redactor);
    const gauges = new RelayerGauges(book, redactor);

    const started = Date.now();
    const cold = new Map((await gauges.execute()).map((s) => [s.relayer, s]));
    expect(Date.now() - started).toBeLessThan(SLACK_MS);
    expect(cold.get('ops')).toMatchObject({ balanceWei: null, balanceError: null });
    expect(cold.get('watcher')).toMatchObject({ balanceWei: null, balanceError: 'no signer configured: the address is unknown' });
    expect(reader.reads).toBe(4);

    await new Promise((r) => setTimeout(r, HANG_MS + 200));
    const warm = new Map((await gauges.execute()).map((s) => [s.relayer, s]));
    expect(warm.get('ops')).toMatchObject({ balanceWei: 3n * ETHER, plan: { lowBalance: false } });
    expect(warm.get('keeper')).toMatchObject({ balanceWei: ETHER / 20n, plan: { lowBalance: true } });
    expect(warm.get('stuck-keeper')!.balanceError).toMatch(/^stuck: no provider answered/);
    expect(reader.reads).toBe(4);

    // Stale: the last reading is served while a new one is read.
    chain.setBalance(OPS.address, 5n);
    clock.advance(15_000);
    expect((await gauges.execute()).find((s) => s.relayer === 'ops')!.balanceWei).toBe(3n * ETHER);
    await new Promise((r) => setTimeout(r, 20));
    expect((await gauges.execute()).find((s) => s.relayer === 'ops')!.balanceWei).toBe(5n);
  });
});
