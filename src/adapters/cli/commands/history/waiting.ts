import { Flags } from '@oclif/core';
import type { WaitingItem } from '../../../../application/history/items';
import { ListWaiting } from '../../../../application/history/list-waiting.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';

/** `chainflow history waiting`: runs parked now. */
export default class HistoryWaiting extends ListCommand<WaitingItem> {
  static override summary = 'List runs parked now (tx, delay, event, approval) with due and expiry times';
  static override flags = {
    workflow: Flags.string({ description: 'workflow name' }),
    'wait-kind': Flags.string({ description: 'tx, delay, event or approval' }),
    since: Flags.string({ description: 'parked since: duration back from now or RFC 3339 time' }),
    until: Flags.string({ description: 'parked until: duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  protected readonly queryFlags = ['workflow', 'wait-kind', 'since', 'until'];
  protected readonly empty = 'no runs waiting';
  protected readonly columns: readonly Column<WaitingItem>[] = [
    ['RUN', (w) => w.run_id], ['WORKFLOW', (w) => w.workflow], ['WAITS FOR', (w) => w.wait_kind], ['STEP RUN', (w) => w.step_run_id],
    ['PARKED', (w) => w.parked_at], ['DUE', (w) => w.due_at], ['EXPIRES', (w) => w.expires_at],
  ];

  protected useCase(): typeof ListWaiting {
    return ListWaiting;
  }
}
