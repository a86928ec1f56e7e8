import { Flags } from '@oclif/core';
import { GetSpend, type SpendReport } from '../../../../application/spend/get-spend.use-case';
import type { SpendGroupItem, SpendTotalsItem } from '../../../../application/spend/spend-items';
import { formatNative } from '../../../../domain/wei';
import { ChainflowCommand, toQuery } from '../../base.command';
import { renderTable } from '../../table';

export const SPEND_FILTER_FLAGS = {
  workflow: Flags.string({ description: 'only this workflow (relayers.topup: top-ups)' }),
  relayer: Flags.string({ description: 'only this relayer' }),
  network: Flags.string({ description: 'only this network' }),
  since: Flags.string({ description: 'recorded at or after: a duration back from now (24h, 30d) or an RFC 3339 timestamp' }),
  until: Flags.string({ description: 'recorded at or before: a duration back from now or an RFC 3339 timestamp' }),
};
export const SPEND_FILTER_NAMES = ['workflow', 'relayer', 'network', 'since', 'until'] as const;

/** `chainflow spend`: what sends paid, grouped by workflow, relayer and network, with totals. */
export default class Spend extends ChainflowCommand {
  static override summary = 'Spend summary per workflow, relayer and network, plus totals (--json: exact wei and the newest entries)';
  static override examples = ['<%= config.bin %> spend --since 24h', '<%= config.bin %> spend --relayer ops --json'];
  static override flags = {
    ...SPEND_FILTER_FLAGS,
    json: Flags.boolean({ description: 'print the API shape { summary, entries } with amounts as exact wei' }),
    limit: Flags.string({ description: 'entries with --json, 0 to 500 (default 50)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Spend);
    const root = await this.root(flags.config);
    const query = toQuery(flags, [...SPEND_FILTER_NAMES, 'limit']);
    if (!flags.json) query.limit ??= '0';
    const report = await root.container.get(GetSpend).execute(query);
    if (flags.json) {
      this.log(JSON.stringify(report, null, 2));
      return;
    }
    const symbols = new Map([...root.config.networks.values()].map((n) => [n.name, n.nativeSymbol]));
    this.log(renderSummary(report, (network) => symbols.get(network) ?? 'ETH'));
  }
}

/** The human tables: one per dimension, then the totals; amounts in the native unit. */
export function renderSummary(report: SpendReport, symbolOf: (network: string) => string): string {
  const { summary } = report;
  if (summary.total.tx_count === 0) return 'no spend recorded';
  // Groups other than networks may span networks: one native unit when they all share it, else wei.
  const shared = new Set(summary.by_network.map((g) => symbolOf(g.key)));
  const unit = shared.size === 1 ? [...shared][0]! : undefined;
  const amount = (wei: string, symbol = unit): string => (symbol ? formatNative(BigInt(wei), symbol, 9) : `${wei} wei`);
  const headers = (dim: string): string[] => [dim, 'SENDS', 'GAS SPEND', 'VALUE MOVED', 'REVERTED', 'REVERTED LOSS'];
  const row = (g: SpendTotalsItem, key: string, symbol?: string): (string | number)[] => [
    key, g.tx_count, amount(g.gas_spend_wei, symbol), amount(g.value_wei, symbol), g.reverted_count, amount(g.reverted_gas_wei, symbol),
  ];
  const table = (dim: string, groups: SpendGroupItem[], symbolFor?: (key: string) => string): string =>
    renderTable(headers(dim), groups.map((g) => row(g, g.key, symbolFor ? symbolFor(g.key) : unit)));
  return [
    table('WORKFLOW', summary.by_workflow),
    table('RELAYER', summary.by_relayer),
    table('NETWORK', summary.by_network, symbolOf),
    renderTable(headers('TOTAL'), [row(summary.total, 'total')]),
  ].join('\n\n');
}
