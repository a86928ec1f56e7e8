import type { ServiceIdentifier } from 'inversify';
import type { ListEnvelope } from '../../application/history/items';
import type { ChainflowConfig } from '../../application/config';
import { ChainflowCommand, toQuery } from './base.command';
import { nextPageHint, renderTable } from './table';

/** A column of a human table: its header and how to show an item's cell. */
export type Column<T> = readonly [header: string, cell: (item: T) => string | number | boolean | null | undefined];

/**
 * A history list command (CONTRACT section 6): a human table by default, `--json` for the API's
 * `{ items, cursor, has_more }`, `--limit`, `--cursor`, and `next page: --cursor <c>` when more rows exist.
 */
export abstract class ListCommand<T> extends ChainflowCommand {
  /** Flag names that are query parameters (dashes become underscores). */
  protected abstract readonly queryFlags: readonly string[];
  protected abstract readonly columns: readonly Column<T>[];
  protected abstract readonly empty: string;
  protected abstract useCase(): ServiceIdentifier<{ execute(query: Record<string, unknown>): Promise<ListEnvelope<T>> }>;

  /** Parameters the command adds on its own (e.g. approvals: pending unless --all). */
  protected defaults(_flags: Record<string, unknown>): Record<string, unknown> {
    return {};
  }

  /** Takes what the table needs besides the page (e.g. each network's native unit) from the configuration. */
  protected prepare(_config: ChainflowConfig): void {}

  async run(): Promise<void> {
    const { flags } = await this.parse(this.constructor as typeof ListCommand);
    const root = await this.root(flags.config as string | undefined);
    this.prepare(root.config);
    const query = { ...this.defaults(flags), ...toQuery(flags, [...this.queryFlags, 'limit', 'cursor']) };
    const page = await root.container.get(this.useCase()).execute(query);
    if (flags.json) {
      this.log(JSON.stringify(page, null, 2));
      return;
    }
    if (!page.items.length) {
      this.log(this.empty);
      return;
    }
    this.log(renderTable(this.columns.map(([h]) => h), page.items.map((item) => this.columns.map(([, cell]) => {
      const v = cell(item);
      return typeof v === 'boolean' ? (v ? 'yes' : 'no') : v;
    }))));
    const hint = nextPageHint(page.cursor);
    if (hint) this.log(hint);
  }
}
