import type { ChainflowConfig } from '../../src/application/config';
import type { AppendResult } from '../../src/application/ports/journal-writer';
import type { ChainTarget, SignedTransaction } from '../../src/application/ports/chain';
import { FillNonceGaps } from '../../src/application/sends/fill-nonce-gaps.use-case';
import { LaneWatch } from '../../src/application/sends/lane-watch';
import { AdvanceSend } from '../../src/application/sends/advance-send.use-case';
import { Relayers } from '../../src/application/sends/relayers';
import { SubmitSend, WATCH_GRACE_MS } from '../../src/application/sends/submit-send.use-case';
import { WatchSends } from '../../src/application/sends/watch-sends.use-case';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import { TopupSettlement } from '../../src/application/relayers/topup-settlement';
import { RecentGasSpend } from '../../src/application/relayers/recent-gas-spend';
import { RelayerBalances } from '../../src/application/relayers/relayer-balances';
import { RelayerBook } from '../../src/application/relayers/relayer-book';
import { TopUpRelayer, type TopupRequest } from '../../src/application/relayers/top-up-relayer.use-case';
import { BudgetGuard } from '../../src/application/spend/budget-guard.use-case';
import { SendTransaction } from '../../src/application/sends/send-transaction.use-case';
import { InvalidInputError, SecretMissingError } from '../../src/domain/errors';
import { ExplorerLinks } from '../../src/domain/explorer';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { Redactor } from '../../src/domain/redactor';
import type { TopupAttempt } from '../../src/domain/relayers/topup';
import { CountingSendMetrics } from '../fakes/counting-send-metrics';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemorySendStore } from '../fakes/in-memory-send-store';
import { InMemoryChain } from '../fakes/in-memory-chain';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryBudgetReservations, InMemorySpendLedger } from '../fakes/in-memory-spend';
import { InMemoryTopupAudit } from '../fakes/in-memory-topup-audit';
import { T0 } from '../mothers/journal-events';
import { ANVIL_ACCOUNTS } from '../support/anvil';

const ETHER = 10n ** 18n;
const [OPS, KEEPER, PAUPER, BASE] = [ANVIL_ACCOUNTS[1]!, ANVIL_ACCOUNTS[2]!, ANVIL_ACCOUNTS[3]!, ANVIL_ACCOUNTS[4]!];
const RPC = 'https://sepolia.rpc.example/v3/sepolia-project-key';
/** A fee above what any 21 000-gas transfer of the fake costs (max fee 3 gwei). */
const FEE_BOUND = 21_000n * 3_000_000_000n;

const config: ChainflowConfig = {
  server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false },
  storage: { url: 'sqlite::memory:' },
  networks: new Map([
    ['sepolia', { name: 'sepolia', chainId: 11155111, nativeSymbol: 'ETH', rpc: [RPC], replaceAfterMs: 60_000, confirmations: 1 }],
    ['base', { name: 'base', chainId: 8453, nativeSymbol: 'ETH', rpc: ['https://base.rpc.example/v3/base-project-key'], replaceAfterMs: 60_000, confirmations: 1 }],
  ]),
  relayers: new Map([
    ['ops', { name: 'ops', network: 'sepolia', signer: OPS.privateKey, lowBalanceWei: ETHER }],
    ['keeper', { name: 'keeper', network: 'sepolia', signer: KEEPER.privateKey }],
    ['keeper-twin', { name: 'keeper-twin', network: 'sepolia', signer: KEEPER.privateKey }],
    ['pauper', { name: 'pauper', network: 'sepolia', signer: PAUPER.privateKey }],
    ['watcher', { name: 'watcher', network: 'sepolia' }],
    ['unset', { name: 'unset', network: 'sepolia' }],
    ['base-keeper', { name: 'base-keeper', network: 'base', signer: BASE.privateKey }],
  ]),
  budgets: new Map(),
  workflows: new Map(),
  secretValues: [RPC, OPS.privateKey, KEEPER.privateKey, PAUPER.privateKey, BASE.privateKey],
  unsetSecrets: [{ at: 'relayers.unset.signer', variable: 'UNSET_KEY', empty: false }],
};

/** A journal whose appends holding a given event type fail (storage trouble at the worst moment). */
class FailingJournal extends InMemoryJournal {
  failOn: JournalEvent['type'] | undefined;
  override async append(events: readonly JournalEvent[]): Promise<AppendResult> {
    if (events.some((e) => e.type === this.failOn)) throw new Error('disk I/O error');
    return super.append(events);
  }
}

describe('TopUpRelayer', () => {
  let chain: InMemoryChain;
  let spend: InMemorySpendLedger;
  let journal: FailingJournal;
  let audit: InMemoryTopupAudit;
  let clock: FixedClock;
  let balances: RelayerBalances;
  let topUp: TopUpRelayer;
  /** The engine's send watcher over the same stores (it settles what nobody waits for). */
  let watch: WatchSends;
  /** What the audit trail held at each broadcast. */
  let auditAtBroadcast: TopupAttempt[][];

  beforeEach(() => {
    chain = new InMemoryChain({ chainId: 11155111 })
      .addAccount(OPS.privateKey, OPS.address, 10n * ETHER)
      .addAccount(KEEPER.privateKey, KEEPER.address, ETHER / 100n)
      .addAccount(PAUPER.privateKey, PAUPER.address, ETHER / 1000n)
      .addAccount(BASE.privateKey, BASE.address, ETHER);
    spend = new InMemorySpendLedger();
    journal = new FailingJournal({ spend });
    audit = new InMemoryTopupAudit();
    clock = new FixedClock(T0);
    auditAtBroadcast = [];
    const redactor = new Redactor(config.secretValues);
    const broadcast = chain.broadcast.bind(chain);
    chain.broadcast = async (target: ChainTarget, signed: SignedTransaction): Promise<void> => {
      auditAtBroadcast.push(await audit.list({ equals: {} }, { limit: 500 }));
      return broadcast(target, signed);
    };
    const guard = new BudgetGuard(config, spend, InMemoryBudgetReservations.over(journal), journal, clock);
    const store = new InMemorySendStore();
    const metrics = new CountingSendMetrics();
    const relayers = new Relayers(config, chain);
    const submit = new SubmitSend(relayers, chain, chain, store, store, guard, journal, metrics, clock, redactor);
    const advance = new AdvanceSend(relayers, chain, chain, store, journal, metrics, clock, new LaneWatch(config, chain, clock));
    const send = new SendTransaction(submit, advance, store, journal, journal, clock);
    balances = new RelayerBalances(chain, clock, redactor, { readTimeoutMs: 1000 });
    const book = new RelayerBook(config, chain, balances, new RecentGasSpend(config, spend, clock), redactor);
    topUp = new TopUpRelayer(config, book, balances, send, journal, audit, new ExplorerLinks(), redactor, clock);
    const logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
    watch = new WatchSends(store, advance, store, journal, journal, new WorkflowCatalog(config), relayers, clock, logger, redactor, new TopupSettlement(audit, clock),
      new FillNonceGaps(config, relayers, store, chain, chain, clock, logger, redactor));
  });

  const request = (overrides: Partial<TopupRequest> = {}): TopupRequest => ({ from: 'ops', to: 'keeper', amount: '0.5ether', by: 'alice', ...overrides });
  const trail = (): Promise<TopupAttempt[]> => audit.list({ equals: {} }, { limit: 500 });
  const balanceOf = (address: string): Promise<bigint> => chain.balance(config.networks.get('sepolia')! as never, address);

  it('a top-up: a signed transfer A → B, its ledger entry under relayers.topup attributed to A, its audit row, its run', async () => {
    const opsBefore = await balanceOf(OPS.address);
    const item = await topUp.execute(request());

    expect(item).toMatchObject({
      by: 'alice', from: 'ops', to: 'keeper', network: 'sepolia', chain_id: 11155111, amount_wei: (ETHER / 2n).toString(),
      outcome: 'confirmed', error: null, from_address: OPS.address, to_address: KEEPER.address, run_id: item.topup_id,
      at: new Date(T0).toISOString(),
    });
    expect(item.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(item.explorer_url).toBe(`https://sepolia.etherscan.io/tx/${item.tx_hash}`);

    // The chain moved the amount, and A paid its gas.
    expect(await balanceOf(KEEPER.address)).toBe(ETHER / 100n + ETHER / 2n);
    const paid = opsBefore - (await balanceOf(OPS.address));
    const [entry, ...others] = spend.all();
    expect(others).toEqual([]);
    expect(entry).toMatchObject({
      workflow: 'relayers.topup', relayer: 'ops', network: 'sepolia', chainId: 11155111, runId: item.topup_id,
      txHash: item.tx_hash, valueWei: ETHER / 2n, reverted: false,
    });
    expect(paid).toBe(ETHER / 2n + entry!.gasSpendWei);

    expect(await trail()).toEqual([expect.objectContaining({ topupId: item.topup_id, outcome: 'confirmed', txHash: item.tx_hash, error: null, by: 'alice' })]);
    // Recorded pending before anything reached the chain.
    expect(auditAtBroadcast).toEqual([[expect.objectContaining({ topupId: item.topup_id, outcome: 'pending', txHash: null })]]);

    const run = (await journal.get(item.topup_id))!;
    expect(run).toMatchObject({ workflow: 'relayers.topup', status: 'succeeded', network: 'sepolia', session: 'live', triggerKind: 'manual' });
    expect([...run.relayers]).toEqual(['ops']);
    const [started] = await journal.stream(item.topup_id);
    expect(started).toMatchObject({ trigger: { summary: 'top-up of relayer keeper from ops by alice (0.5 ETH)' } });
  });

  it('a top-up the node refuses (insufficient funds): an audit row saying why, no ledger entry, nothing moved', async () => {
    const before = [await balanceOf(PAUPER.address), await balanceOf(KEEPER.address)];
    const item = await topUp.execute(request({ from: 'pauper', amount: '1 ether' }));
    expect(item).toMatchObject({ outcome: 'failed', tx_hash: null, from: 'pauper', explorer_url: null });
    expect(item.error).toMatch(/insufficient funds/i);
    expect(await trail()).toEqual([expect.objectContaining({ topupId: item.topup_id, outcome: 'failed', error: item.error })]);
    expect(spend.all()).toEqual([]);
    expect([await balanceOf(PAUPER.address), await balanceOf(KEEPER.address)]).toEqual(before);
    expect(await journal.get(item.topup_id)).toMatchObject({ workflow: 'relayers.topup', status: 'failed', errorKind: 'broadcast_failed' });
  });

  it('every provider down: a failed audit row naming the network, never the URL', async () => {
    chain.setProvider(RPC, 'refuse');
    const item = await topUp.execute(request());
    expect(item).toMatchObject({ outcome: 'failed', tx_hash: null });
    expect(item.error).toBe('not signed: sepolia: no provider answered (provider 1: connection refused)');
    expect((await trail()).map((r) => r.error)).toEqual([item.error]);
    expect(spend.all()).toEqual([]);
  });

  it('no receipt within the wait: submitted, its run waits on the transaction, no ledger entry yet', async () => {
    chain.holdMining();
    // The send path waits for the receipt by the clock: let it run while the wait lasts.
    const ticking = setInterval(() => clock.advance(100), 10);
    const item = await topUp.execute(request({ wait: '1s' })).finally(() => clearInterval(ticking));
    expect(item).toMatchObject({ outcome: 'submitted', error: 'no receipt within 1 s: the transaction may still land' });
    expect(item.tx_hash).toMatch(/^0x/);
    expect(await trail()).toEqual([expect.objectContaining({ outcome: 'submitted', txHash: item.tx_hash })]);
    expect(await journal.get(item.topup_id)).toMatchObject({ status: 'waiting', waitKind: 'tx' });
    expect(spend.all()).toEqual([]);

    // It lands later: the engine's send watcher settles it, which ends the run and completes the audit row.
    chain.mine();
    clock.advance(WATCH_GRACE_MS + 1000);
    expect(await watch.drain('engine-1')).toBe(1);
    expect(await journal.get(item.topup_id)).toMatchObject({ status: 'succeeded', waitKind: null });
    expect((await journal.stream(item.topup_id)).map((e) => e.type).slice(-4)).toEqual(['send.settled', 'run.resumed', 'step.finished', 'run.finished']);
    expect(await trail()).toEqual([expect.objectContaining({ outcome: 'confirmed', txHash: item.tx_hash, error: null })]);
    expect(spend.all()).toEqual([expect.objectContaining({ workflow: 'relayers.topup', relayer: 'ops', txHash: item.tx_hash, valueWei: ETHER / 2n })]);
    // Nothing more to settle, and a second drain changes nothing.
    expect(await watch.drain('engine-1')).toBe(0);
    expect(await trail()).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
  });

  it('a failure of its own after the attempt began: the row says unknown (check before retrying), and the error goes on', async () => {
    journal.failOn = 'send.submitted';
    await expect(topUp.execute(request())).rejects.toThrow('disk I/O error');
    const [row] = await trail();
    expect(row).toMatchObject({ outcome: 'unknown' });
    expect(row!.error).toMatch(/^disk I\/O error; check run \S+ and the chain before trying again$/);
  });

  it.each<[string, Partial<TopupRequest>, string]>([
    ['an unknown funding relayer', { from: 'nobody' }, "from: no relayer named 'nobody' is configured (known: base-keeper, keeper, keeper-twin, ops, pauper, unset, watcher)"],
    ['an unknown relayer funded', { to: 'nobody' }, "to: no relayer named 'nobody'"],
    ['a relayer funding itself', { to: 'ops' }, 'to: names the funding relayer itself'],
    ['two networks', { to: 'base-keeper' }, "to: relayer 'base-keeper' is on network 'base', relayer 'ops' on 'sepolia': a top-up stays on one network"],
    ['a funding relayer without a signer', { from: 'watcher' }, "from: relayer 'watcher' has no signer configured"],
    ['a relayer funded without an address', { to: 'watcher' }, "to: relayer 'watcher': no signer configured: the address is unknown"],
    ['the same address under another name', { from: 'keeper', to: 'keeper-twin' }, "to: relayer 'keeper-twin' has the address of relayer 'keeper'"],
    ['a zero amount', { amount: '0' }, 'amount: must be above zero'],
    ['a malformed amount', { amount: '0.5eth' }, 'amount: is not an amount'],
    ['a fraction finer than a wei', { amount: '0.1 wei' }, 'amount: '],
    ['nobody', { by: ' ' }, 'by: must be a name'],
    ['a control character in the name', { by: 'eve\u001b[2J' }, 'by: must be a name'],
    ['a bad wait', { wait: '2 minutes' }, 'wait: '],
    ['a wait above an hour', { wait: '2h' }, 'wait: must be at most 1h'],
  ])('refuses %s before anything is written', async (_name, overrides, message) => {
    const error = await topUp.execute(request(overrides)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message.startsWith(message)).toBe(true);
    expect(await trail()).toEqual([]);
    expect(await journal.list({}, { limit: 10 })).toEqual([]);
    expect(auditAtBroadcast).toEqual([]);
  });

  it('a funding relayer whose signer variable is unset: the variable is named, and nothing is written', async () => {
    const error = await topUp.execute(request({ from: 'unset' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretMissingError);
    expect((error as Error).message).toBe('a top-up from relayer unset needs relayers.unset.signer (environment variable UNSET_KEY is not set)');
    expect(await trail()).toEqual([]);
  });

  it('the balances it moved are read again at once, not after the cache\'s 15 s', async () => {
    const target = { network: 'sepolia', chainId: 11155111, rpc: [RPC] };
    const before = await balances.read(target, KEEPER.address);
    expect(before).toMatchObject({ wei: ETHER / 100n });
    await topUp.execute(request());
    expect(await balances.read(target, KEEPER.address)).toMatchObject({ wei: ETHER / 100n + ETHER / 2n });
  });
});
