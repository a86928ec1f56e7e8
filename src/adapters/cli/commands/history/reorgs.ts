import { Flags } from '@oclif/core';
import type { ReorgResponseItem } from '../../../../application/history/items';
import { ListReorgs } from '../../../../application/history/list-reorgs.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';

/** `chainflow history reorgs`: durable on_reorg responses and their steps (`--json`: with explorer links to both blocks). */
export default class HistoryReorgs extends ListCommand<ReorgResponseItem> {
  static override summary = 'List on_reorg responses and their steps';
  static override flags = {
    workflow: Flags.string({ description: 'workflow name' }),
    network: Flags.string({ description: 'network name' }),
    since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
    until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  protected readonly queryFlags = ['workflow', 'network', 'since', 'until'];
  protected readonly empty = 'no reorg responses';
  protected readonly columns: readonly Column<ReorgResponseItem>[] = [
    ['REORG', (r) => r.reorg_id], ['RUN', (r) => r.run_id], ['WORKFLOW', (r) => r.workflow], ['NETWORK', (r) => r.network],
    ['BLOCK', (r) => r.block], ['REMOVED BLOCK HASH', (r) => r.removed_block_hash], ['STEPS', (r) => r.steps.map((s) => `${s.step_id}:${s.status}`).join(' ')], ['CREATED', (r) => r.created_at],
  ];

  protected useCase(): typeof ListReorgs {
    return ListReorgs;
  }
}
