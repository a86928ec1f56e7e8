import { GetSpend } from '../../src/application/spend/get-spend.use-case';
import { InvalidInputError } from '../../src/domain/errors';
import { ExplorerLinks } from '../../src/domain/explorer';
import { Redactor } from '../../src/domain/redactor';
import { MAX_UINT256, type LedgerEntry } from '../../src/domain/spend/ledger-entry';
import { anEntry } from '../contract/spend.contract';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemorySpendLedger } from '../fakes/in-memory-spend';
import { aTxHash, DAY, HOUR, iso, MINUTE, T0 } from '../mothers/journal-events';

describe('GetSpend', () => {
  let ledger: InMemorySpendLedger;
  let spend: GetSpend;

  beforeEach(() => {
    ledger = new InMemorySpendLedger();
    spend = new GetSpend(ledger, new Redactor([]), new ExplorerLinks(), new FixedClock(T0));
  });

  /** `n` entries one minute apart going back from T0 - 1 minute; workflow / relayer / network alternate. */
  const some = (n: number): LedgerEntry[] => Array.from({ length: n }, (_, i) => anEntry({
    stepRunId: `e${String(i).padStart(3, '0')}.pay`, recordedAt: T0 - (i + 1) * MINUTE,
    workflow: i % 2 ? 'keeper' : 'payouts', relayer: i % 3 ? 'ops' : 'treasury', network: i % 5 ? 'sepolia' : 'base',
    gasSpendWei: BigInt(i + 1) * 1000n, valueWei: BigInt(i), reverted: i % 7 === 3,
  }));

  const rejectsNaming = async (query: Record<string, unknown>, field: string): Promise<void> => {
    const err = await spend.execute(query).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).field).toBe(field);
    expect((err as InvalidInputError).message).toContain(field);
  };

  it('gives 50 entries by default, newest first, with the summary of the whole ledger', async () => {
    await ledger.append(some(60));
    const report = await spend.execute({});
    expect(report.entries).toHaveLength(50);
    expect(report.entries.map((e) => e.step_run_id)).toEqual(some(50).map((e) => e.stepRunId));
    expect(report.summary.total.tx_count).toBe(60);
    expect(report.summary.total.gas_spend_wei).toBe(((60n * 61n) / 2n * 1000n).toString());
  });

  it('pages entries only: the summary is the same whatever the limit, and 0 gives the summary alone', async () => {
    await ledger.append(some(30));
    const full = await spend.execute({ limit: '500' });
    expect(full.entries).toHaveLength(30);
    const one = await spend.execute({ limit: '1' });
    expect(one.entries.map((e) => e.step_run_id)).toEqual(['e000.pay']);
    const none = await spend.execute({ limit: '0' });
    expect(none.entries).toEqual([]);
    expect(one.summary).toEqual(full.summary);
    expect(none.summary).toEqual(full.summary);
    expect((await spend.execute({ limit: 3 })).entries).toHaveLength(3);
  });

  it('refuses a limit outside 0..500 or not an integer, naming limit', async () => {
    for (const limit of ['501', '-1', 'x', '1.5', '', '1e2', 501, -1]) await rejectsNaming({ limit }, 'limit');
    await expect(spend.execute({ limit: '500' })).resolves.toBeDefined();
  });

  it('refuses an unknown parameter, naming it', async () => {
    await rejectsNaming({ relayers: 'ops' }, 'relayers');
    await rejectsNaming({ cursor: 'abc' }, 'cursor');
  });

  it('refuses a bad time, naming the parameter', async () => {
    await rejectsNaming({ since: 'yesterday' }, 'since');
    await rejectsNaming({ until: '2026-13-01T00:00:00Z' }, 'until');
  });

  it('filters by workflow, relayer, network, since and until, summary and entries alike', async () => {
    const entries = some(40);
    await ledger.append(entries);
    const check = async (query: Record<string, unknown>, keep: (e: LedgerEntry) => boolean): Promise<void> => {
      const expected = entries.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(entries.length);
      const report = await spend.execute({ ...query, limit: '500' });
      expect(report.entries.map((e) => e.step_run_id)).toEqual(expected.map((e) => e.stepRunId));
      expect(report.summary.total.tx_count).toBe(expected.length);
      expect(report.summary.total.gas_spend_wei).toBe(expected.reduce((a, e) => a + e.gasSpendWei, 0n).toString());
    };
    await check({ workflow: 'keeper' }, (e) => e.workflow === 'keeper');
    await check({ relayer: 'treasury' }, (e) => e.relayer === 'treasury');
    await check({ network: 'base' }, (e) => e.network === 'base');
    await check({ since: '10m' }, (e) => e.recordedAt >= T0 - 10 * MINUTE);
    await check({ since: iso(T0 - 20 * MINUTE), until: iso(T0 - 5 * MINUTE) }, (e) => e.recordedAt >= T0 - 20 * MINUTE && e.recordedAt <= T0 - 5 * MINUTE);
    await check({ until: '30m' }, (e) => e.recordedAt <= T0 - 30 * MINUTE);
    await check({ workflow: 'payouts', relayer: 'ops', network: 'sepolia', since: '1h' }, (e) => e.workflow === 'payouts' && e.relayer === 'ops' && e.network === 'sepolia');
    expect((await spend.execute({ workflow: 'nope' })).summary.total.tx_count).toBe(0);
  });

  it('shows amounts as exact decimal strings, groups per dimension, and a total without key', async () => {
    const huge = MAX_UINT256 - 5n;
    await ledger.append([
      anEntry({ stepRunId: 'a.pay', recordedAt: T0 - HOUR, workflow: 'payouts', relayer: 'ops', network: 'sepolia', gasSpendWei: huge, valueWei: huge }),
      anEntry({ stepRunId: 'b.pay', recordedAt: T0 - 2 * HOUR, workflow: 'payouts', relayer: 'treasury', network: 'base', gasSpendWei: huge, valueWei: 1n }),
      anEntry({ stepRunId: 'c.pay', recordedAt: T0 - DAY, workflow: 'relayers.topup', relayer: 'treasury', network: 'base', gasSpendWei: 3n, valueWei: 0n, reverted: true }),
    ]);
    const { summary } = await spend.execute({ limit: '0' });
    expect(summary.total).toEqual({
      tx_count: 3, gas_spend_wei: (2n * huge + 3n).toString(), value_wei: (huge + 1n).toString(), reverted_count: 1, reverted_gas_wei: '3',
    });
    expect(summary.total).not.toHaveProperty('key');
    expect(summary.by_workflow).toEqual([
      { key: 'payouts', tx_count: 2, gas_spend_wei: (2n * huge).toString(), value_wei: (huge + 1n).toString(), reverted_count: 0, reverted_gas_wei: '0' },
      { key: 'relayers.topup', tx_count: 1, gas_spend_wei: '3', value_wei: '0', reverted_count: 1, reverted_gas_wei: '3' },
    ]);
    expect(summary.by_relayer.map((g) => [g.key, g.tx_count, g.gas_spend_wei])).toEqual([['treasury', 2, (huge + 3n).toString()], ['ops', 1, huge.toString()]]);
    expect(summary.by_network.map((g) => [g.key, g.tx_count])).toEqual([['base', 2], ['sepolia', 1]]);
  });

  it('shows entries with SPEC fields, amounts as decimal strings, and an explorer link per transaction', async () => {
    await ledger.append([anEntry({
      stepRunId: 'run-9.pay', recordedAt: T0 - MINUTE, gasUsed: 21000n, effectiveGasPrice: 1_500_000_000n, gasSpendWei: (1n << 200n) + 1n,
      valueWei: 10n ** 30n, txHash: aTxHash('nine'),
    })]);
    const report = await spend.execute({});
    expect(report.entries).toEqual([{
      recorded_at: iso(T0 - MINUTE), workflow: 'payouts', run_id: 'run-9', step_run_id: 'run-9.pay', relayer: 'ops', network: 'sepolia',
      chain_id: 11155111, tx_hash: aTxHash('nine'), gas_used: '21000', effective_gas_price: '1500000000',
      gas_spend_wei: ((1n << 200n) + 1n).toString(), value_wei: '1000000000000000000000000000000', reverted: false, reorged: false,
    }]);
    expect(report.explorer_urls[aTxHash('nine')]).toBe(`https://sepolia.etherscan.io/tx/${aTxHash('nine')}`);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('answers an empty ledger with zero totals', async () => {
    expect(await spend.execute({})).toEqual({
      summary: { by_workflow: [], by_relayer: [], by_network: [], total: { tx_count: 0, gas_spend_wei: '0', value_wei: '0', reverted_count: 0, reverted_gas_wei: '0' } },
      entries: [], explorer_urls: {},
    });
  });
  it('redacts secrets in names and ids, never inside exact amounts, hashes or times', async () => {
    const secret = '4200';
    const redacting = new GetSpend(ledger, new Redactor([secret, 'hunter-4200-name']), new ExplorerLinks(), new FixedClock(T0));
    await ledger.append([anEntry({
      stepRunId: 'step-hunter-4200-name', workflow: 'wf-hunter-4200-name', gasUsed: 21000n, effectiveGasPrice: 2_000_000_000n,
      gasSpendWei: 42_000_000_000_000n, valueWei: 42_000_000n, txHash: `0x${'42'.repeat(2)}00${'ab'.repeat(29)}`, recordedAt: T0 - HOUR,
    })]);
    const report = await redacting.execute({});
    const [entry] = report.entries;
    expect(entry!.gas_spend_wei).toBe('42000000000000');
    expect(entry!.value_wei).toBe('42000000');
    expect(entry!.tx_hash).toBe(`0x${'42'.repeat(2)}00${'ab'.repeat(29)}`);
    expect(entry!.workflow).toBe('wf-<redacted>');
    expect(entry!.step_run_id).toBe('step-<redacted>');
    expect(report.summary.by_workflow[0]!.key).toBe('wf-<redacted>');
    expect(report.summary.total.gas_spend_wei).toBe('42000000000000');
  });
});
