import type { RunItem } from '../../../../application/history/items';
import { ListRuns } from '../../../../application/history/list-runs.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';
import { RUN_FILTER_FLAG_NAMES, runFilterFlags } from '../../run-filter.flags';
import { humanDuration } from '../../table';

/** `chainflow history` (also `chainflow history runs`): list runs, newest first, with every run filter. */
export default class History extends ListCommand<RunItem> {
  static override summary = 'List runs, newest first';
  static override examples = ['<%= config.bin %> history --status failed --since 24h', '<%= config.bin %> history --workflow payouts --json'];
  static override flags = { ...runFilterFlags, ...listFlags };

  protected readonly queryFlags = RUN_FILTER_FLAG_NAMES;
  protected readonly empty = 'no runs';
  protected readonly columns: readonly Column<RunItem>[] = [
    ['RUN', (r) => r.run_id], ['WORKFLOW', (r) => r.workflow], ['STATUS', (r) => r.status], ['TRIGGER', (r) => r.trigger],
    ['SESSION', (r) => r.session], ['NETWORK', (r) => r.network], ['ERROR', (r) => r.error_kind], ['CREATED', (r) => r.created_at],
    ['DURATION', (r) => humanDuration(r.duration_ms)],
  ];

  protected useCase(): typeof ListRuns {
    return ListRuns;
  }
}
