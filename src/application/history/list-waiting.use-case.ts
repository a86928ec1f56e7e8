import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { Redactor } from '../../domain/redactor';
import type { Run } from '../../domain/run';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { WAITING_FILTERS } from './history-lists';
import { toWaitingItem, type WaitingItem, type ListEnvelope, WAITING_ITEM_KEYS } from './items';
import { KeysetList } from './keyset-list';
import type { ParamSpecs } from '../query/query-params';

/** Lists the runs parked now (tx, delay, event, approval) with their due and expiry times, newest first. */
@injectable()
export class ListWaiting {
  private readonly list: KeysetList<Run, WaitingItem>;

  constructor(
    @inject(HistoryRepository) history: HistoryRepository,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.list = new KeysetList<Run, WaitingItem>({
      list: 'waiting',
      filters: WAITING_FILTERS,
      timeField: 'parked_at',
      fetch: (filter, page) => history.listWaiting(filter, page),
      position: (row) => ({ createdAt: row.parkedAt ?? 0, id: row.runId }),
      item: toWaitingItem,
      fetchJson: (filter, page) => history.listWaitingItems(filter, page),
      itemKeys: WAITING_ITEM_KEYS,
      cursors,
      redactor,
      now: () => clock.now(),
    });
  }

  /** The parameters `execute` takes (its filters, since / until, limit, cursor): for the API's declaration. */
  get params(): ParamSpecs {
    return this.list.params;
  }

  /** `query`: raw parameters (HTTP query or CLI flags), validated here. */
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<WaitingItem>> {
    return this.list.page(query);
  }

  /** The page `execute` answers, as JSON text (the same text), read from items the storage renders: for the API. */
  async executeJson(query: Readonly<Record<string, unknown>>): Promise<string> {
    return this.list.pageJson(query);
  }
}
