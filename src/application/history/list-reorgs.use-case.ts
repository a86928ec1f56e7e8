import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import type { ReorgResponseRecord } from '../../domain/reorg';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { REORG_FILTERS } from './history-lists';
import { toReorgItem, type ReorgResponseItem, type ListEnvelope } from './items';
import { KeysetList } from './keyset-list';
import { reorgBlockUrls } from './timeline-chain';
import type { ParamSpecs } from '../query/query-params';

/** Lists the durable on_reorg responses with their steps and explorer links to both blocks, newest first. */
@injectable()
export class ListReorgs {
  private readonly list: KeysetList<ReorgResponseRecord, ReorgResponseItem>;

  constructor(
    @inject(HistoryRepository) history: HistoryRepository,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
    @inject(ExplorerLinks) explorer: ExplorerLinks,
  ) {
    this.list = new KeysetList<ReorgResponseRecord, ReorgResponseItem>({
      list: 'reorgs',
      filters: REORG_FILTERS,
      timeField: 'created_at',
      fetch: (filter, page) => history.listReorgs(filter, page),
      position: (row) => ({ createdAt: row.createdAt, id: row.reorgId }),
      item: (row) => toReorgItem(row, (r) => reorgBlockUrls(r, explorer)),
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
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<ReorgResponseItem>> {
    return this.list.page(query);
  }
}
