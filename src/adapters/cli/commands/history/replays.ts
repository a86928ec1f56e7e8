import { Flags } from '@oclif/core';
import type { ReplaySessionItem } from '../../../../application/history/items';
import { ListReplays } from '../../../../application/history/list-replays.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';

/** `chainflow history replays`: replay (backtest) and test (dry-run) sessions with their run counts. */
export default class HistoryReplays extends ListCommand<ReplaySessionItem> {
  static override summary = 'List replay and test sessions with their run counts';
  static override flags = {
    workflow: Flags.string({ description: 'workflow name' }),
    kind: Flags.string({ description: 'replay or test' }),
    since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
    until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  protected readonly queryFlags = ['workflow', 'kind', 'since', 'until'];
  protected readonly empty = 'no sessions';
  protected readonly columns: readonly Column<ReplaySessionItem>[] = [
    ['SESSION', (s) => s.session_id], ['KIND', (s) => s.kind], ['WORKFLOW', (s) => s.workflow], ['RUNS', (s) => s.run_count],
    ['BLOCKS', (s) => (s.from_block !== null ? `${s.from_block}-${s.to_block ?? ''}` : null)], ['CREATED', (s) => s.created_at],
    ['FINISHED', (s) => s.finished_at],
  ];

  protected useCase(): typeof ListReplays {
    return ListReplays;
  }
}
