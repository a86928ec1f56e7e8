import { Flags } from '@oclif/core';
import type { ChainflowConfig } from '../../../../application/config';
import { ListBudgets, type BudgetItem } from '../../../../application/spend/list-budgets.use-case';
import { formatNative } from '../../../../domain/wei';
import { ChainflowCommand } from '../../base.command';
import { renderTable } from '../../table';

/** Digits of the native unit shown (gwei precision); `--json` has the exact wei. */
const DIGITS = 9;

/**
 * `chainflow budgets [--json]`: each budget's caps with what is spent, reserved by sends in flight, and left, so that
 * whoever approves a payout sees whether it fits. One table row per cap.
 */
export default class Budgets extends ChainflowCommand {
  static override summary = 'Budget headroom: each budget\'s window and caps, with what is spent, reserved (in flight) and left';
  static override examples = ['<%= config.bin %> budgets', '<%= config.bin %> budgets --json'];
  static override flags = {
    json: Flags.boolean({ description: 'print the API shape { items, cursor, has_more } (exact amounts)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Budgets);
    const root = await this.root(flags.config);
    const page = await root.container.get(ListBudgets).execute();
    if (flags.json) {
      this.log(JSON.stringify(page, null, 2));
      return;
    }
    if (!page.items.length) {
      this.log('no budgets configured');
      return;
    }
    const rows = page.items.flatMap((b) => {
      const symbol = nativeSymbol(root.config, b);
      const amount = (v: string | null, token: string | null): string | null =>
        v === null ? null : token === null ? formatNative(BigInt(v), symbol, DIGITS) : `${v} (base units)`;
      return b.caps.map((c) => [
        b.budget, b.window, c.token ? `${c.kind} ${c.token}` : c.kind,
        amount(c.spent, c.token), amount(c.reserved, c.token), amount(c.cap, c.token), amount(c.headroom, c.token),
      ]);
    });
    this.log(renderTable(['BUDGET', 'WINDOW', 'CAP', 'SPENT', 'RESERVED', 'LIMIT', 'HEADROOM'], rows));
  }
}

/** The native unit of the budget's relayers when they share one network, else ETH. */
function nativeSymbol(config: ChainflowConfig, budget: BudgetItem): string {
  const names = budget.relayers ?? [...config.relayers.keys()];
  const symbols = new Set(names.map((r) => config.networks.get(config.relayers.get(r)?.network ?? '')?.nativeSymbol ?? 'ETH'));
  return symbols.size === 1 ? [...symbols][0]! : 'ETH';
}
