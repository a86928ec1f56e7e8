/** Sums over ledger entries (SPEC, Spend summary group), exact: every amount is a bigint of wei. */
export interface SpendTotals {
  txCount: number;
  gasSpendWei: bigint;
  valueWei: bigint;
  revertedCount: number;
  revertedGasWei: bigint;
}

export const zeroTotals = (): SpendTotals => ({ txCount: 0, gasSpendWei: 0n, valueWei: 0n, revertedCount: 0, revertedGasWei: 0n });

export function addTotals(into: SpendTotals, add: SpendTotals): SpendTotals {
  into.txCount += add.txCount;
  into.gasSpendWei += add.gasSpendWei;
  into.valueWei += add.valueWei;
  into.revertedCount += add.revertedCount;
  into.revertedGasWei += add.revertedGasWei;
  return into;
}

/** The totals of one (workflow, relayer, network) combination: the unit the ledger's rollups keep. */
export interface ComboTotals extends SpendTotals {
  readonly workflow: string;
  readonly relayer: string;
  readonly network: string;
}

export interface SpendGroup extends SpendTotals {
  readonly key: string;
}

export interface SpendSummary {
  readonly byWorkflow: SpendGroup[];
  readonly byRelayer: SpendGroup[];
  readonly byNetwork: SpendGroup[];
  readonly total: SpendTotals;
}

/** Groups combination totals per dimension; each group list is ordered by gas spend, largest first, then key. */
export function summarize(combos: Iterable<ComboTotals>): SpendSummary {
  const dims = { workflow: new Map<string, SpendTotals>(), relayer: new Map<string, SpendTotals>(), network: new Map<string, SpendTotals>() };
  const total = zeroTotals();
  for (const c of combos) {
    for (const dim of ['workflow', 'relayer', 'network'] as const) {
      const map = dims[dim];
      const key = c[dim];
      addTotals(map.get(key) ?? map.set(key, zeroTotals()).get(key)!, c);
    }
    addTotals(total, c);
  }
  const groups = (map: Map<string, SpendTotals>): SpendGroup[] =>
    [...map].map(([key, t]) => ({ key, ...t }))
      .sort((a, b) => (a.gasSpendWei === b.gasSpendWei ? (a.key < b.key ? -1 : a.key > b.key ? 1 : 0) : a.gasSpendWei > b.gasSpendWei ? -1 : 1));
  return { byWorkflow: groups(dims.workflow), byRelayer: groups(dims.relayer), byNetwork: groups(dims.network), total };
}
