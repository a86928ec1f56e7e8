import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { Redactor } from '../../domain/redactor';
import type { ReplaySession } from '../../domain/session';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { REPLAY_FILTERS } from './history-lists';
import { toReplaySessionItem, type ReplaySessionItem, type ListEnvelope, REPLAY_ITEM_KEYS } from './items';
import { KeysetList } from './keyset-list';
import type { ParamSpecs } from '../query/query-params';

/** Lists the isolated replay (backtest) and test (dry-run) sessions with their run counts, newest first. */
@injectable()
export class ListReplays {
  private readonly list: KeysetList<ReplaySession, ReplaySessionItem>;

  constructor(
    @inject(HistoryRepository) history: HistoryRepository,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.list = new KeysetList<ReplaySession, ReplaySessionItem>({
      list: 'replays',
      filters: REPLAY_FILTERS,
      timeField: 'created_at',
      fetch: (filter, page) => history.listSessions(filter, page),
      fetchJson: (filter, page) => history.listSessionItems(filter, page),
      itemKeys: REPLAY_ITEM_KEYS,
      position: (row) => ({ createdAt: row.createdAt, id: row.sessionId }),
      item: toReplaySessionItem,
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
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<ReplaySessionItem>> {
    return this.list.page(query);
  }

  /** The page `execute` answers, as JSON text (the same text), read from items the storage renders: for the API. */
  async executeJson(query: Readonly<Record<string, unknown>>): Promise<string> {
    return this.list.pageJson(query);
  }
}
