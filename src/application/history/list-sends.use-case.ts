import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import type { SendAttempt } from '../../domain/send-attempt';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { SEND_FILTERS } from './history-lists';
import { toSendAttemptItem, type SendAttemptItem, type ListEnvelope, SEND_ITEM_KEYS } from './items';
import { KeysetList } from './keyset-list';
import type { ParamSpecs } from '../query/query-params';

/** Lists every send attempted or that would have been sent (replay/test sessions), newest first. */
@injectable()
export class ListSends {
  private readonly list: KeysetList<SendAttempt, SendAttemptItem>;

  constructor(
    @inject(HistoryRepository) history: HistoryRepository,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
    @inject(ExplorerLinks) explorer: ExplorerLinks,
  ) {
    this.list = new KeysetList<SendAttempt, SendAttemptItem>({
      list: 'txs',
      filters: SEND_FILTERS,
      timeField: 'created_at',
      fetch: (filter, page) => history.listSends(filter, page),
      position: (row) => ({ createdAt: row.createdAt, id: row.sendId }),
      item: (row) => toSendAttemptItem(row, (n, c, h) => explorer.tx(n, c, h)),
      fetchJson: (filter, page) => history.listSendItems(filter, page, explorer),
      itemKeys: SEND_ITEM_KEYS,
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
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<SendAttemptItem>> {
    return this.list.page(query);
  }

  /** The page `execute` answers, as JSON text (the same text), read from items the storage renders: for the API. */
  async executeJson(query: Readonly<Record<string, unknown>>): Promise<string> {
    return this.list.pageJson(query);
  }
}
