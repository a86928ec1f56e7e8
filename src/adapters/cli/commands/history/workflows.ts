import { ListWorkflows, type WorkflowRow } from '../../../../application/history/list-workflows.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';
import { humanDuration } from '../../table';

/** `chainflow history workflows`: the workflows overview. */
export default class HistoryWorkflows extends ListCommand<WorkflowRow> {
  static override summary = 'Workflows overview: last runs, counts, durations, transactions, lag';
  static override flags = { ...listFlags };

  protected readonly queryFlags = [];
  protected readonly empty = 'no workflows';
  protected readonly columns: readonly Column<WorkflowRow>[] = [
    ['WORKFLOW', (w) => w.workflow], ['PAUSED', (w) => w.paused], ['TRIGGER', (w) => w.trigger], ['LAST RUN', (w) => w.last_run_at],
    ['OK', (w) => w.success_count], ['FAILED', (w) => w.failure_count], ['WAITING', (w) => w.runs_waiting],
    ['P50', (w) => humanDuration(w.median_duration_ms)], ['P95', (w) => humanDuration(w.p95_duration_ms)], ['TXS', (w) => w.tx_count],
    ['LAST ERROR', (w) => w.recent_error_kind], ['CURSOR / HEAD', (w) => (w.cursor_block === null && w.head_block === null ? null : `${w.cursor_block ?? '-'} / ${w.head_block ?? '-'}`)], ['LAG', (w) => w.lag_blocks],
  ];

  protected useCase(): typeof ListWorkflows {
    return ListWorkflows;
  }
}
