import { addTotals, summarize, zeroTotals, type ComboTotals } from '../../src/domain/spend/spend-totals';

const combo = (workflow: string, relayer: string, network: string, t: Partial<ComboTotals> = {}): ComboTotals => ({
  workflow, relayer, network, ...zeroTotals(), ...t,
});

describe('summarize', () => {
  const huge = (1n << 255n) + 12345n;
  const combos = [
    combo('payouts', 'ops', 'sepolia', { txCount: 2, gasSpendWei: huge, valueWei: 10n, revertedCount: 1, revertedGasWei: 5n }),
    combo('payouts', 'treasury', 'base', { txCount: 1, gasSpendWei: huge, valueWei: 1n << 70n, revertedCount: 0, revertedGasWei: 0n }),
    combo('keeper', 'ops', 'sepolia', { txCount: 3, gasSpendWei: 7n, valueWei: 0n, revertedCount: 3, revertedGasWei: 7n }),
  ];

  it('groups per workflow, relayer and network, with exact sums past uint256', () => {
    const s = summarize(combos);
    expect(s.byWorkflow).toEqual([
      { key: 'payouts', txCount: 3, gasSpendWei: 2n * huge, valueWei: 10n + (1n << 70n), revertedCount: 1, revertedGasWei: 5n },
      { key: 'keeper', txCount: 3, gasSpendWei: 7n, valueWei: 0n, revertedCount: 3, revertedGasWei: 7n },
    ]);
    expect(s.byRelayer).toEqual([
      { key: 'ops', txCount: 5, gasSpendWei: huge + 7n, valueWei: 10n, revertedCount: 4, revertedGasWei: 12n },
      { key: 'treasury', txCount: 1, gasSpendWei: huge, valueWei: 1n << 70n, revertedCount: 0, revertedGasWei: 0n },
    ]);
    expect(s.byNetwork.map((g) => [g.key, g.txCount, g.gasSpendWei])).toEqual([['sepolia', 5, huge + 7n], ['base', 1, huge]]);
    expect(s.total).toEqual({ txCount: 6, gasSpendWei: 2n * huge + 7n, valueWei: 10n + (1n << 70n), revertedCount: 4, revertedGasWei: 12n });
    expect(s.total).not.toHaveProperty('key');
    expect(s.total.gasSpendWei > (1n << 256n)).toBe(true);
  });

  it('orders groups by gas spend, largest first, then by key', () => {
    const s = summarize([
      combo('b', 'r', 'n', { txCount: 1, gasSpendWei: 5n }),
      combo('a', 'r', 'n', { txCount: 1, gasSpendWei: 5n }),
      combo('c', 'r', 'n', { txCount: 1, gasSpendWei: 6n }),
      combo('d', 'r', 'n', { txCount: 1, gasSpendWei: 1n }),
    ]);
    expect(s.byWorkflow.map((g) => g.key)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('gives empty groups and zero totals for no entries', () => {
    expect(summarize([])).toEqual({ byWorkflow: [], byRelayer: [], byNetwork: [], total: zeroTotals() });
  });

  it('adds totals in place', () => {
    const into = zeroTotals();
    addTotals(into, { txCount: 1, gasSpendWei: 2n, valueWei: 3n, revertedCount: 4, revertedGasWei: 5n });
    addTotals(into, { txCount: 1, gasSpendWei: 2n, valueWei: 3n, revertedCount: 4, revertedGasWei: 5n });
    expect(into).toEqual({ txCount: 2, gasSpendWei: 4n, valueWei: 6n, revertedCount: 8, revertedGasWei: 10n });
  });
});
