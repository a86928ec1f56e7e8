import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { Redactor } from '../../domain/redactor';
import type { Approval } from '../../domain/approval';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { APPROVAL_FILTERS } from './history-lists';
import { toApprovalItem, type ApprovalItem, type ListEnvelope, APPROVAL_ITEM_KEYS } from './items';
import { KeysetList } from './keyset-list';
import type { ParamSpecs } from '../query/query-params';

/** Lists approvals, pending and decided (who decided, why), newest request first. */
@injectable()
export class ListApprovals {
  private readonly list: KeysetList<Approval, ApprovalItem>;

  constructor(
    @inject(HistoryRepository) history: HistoryRepository,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.list = new KeysetList<Approval, ApprovalItem>({
      list: 'approvals',
      filters: APPROVAL_FILTERS,
      timeField: 'requested_at',
      fetch: (filter, page) => history.listApprovals(filter, page),
      position: (row) => ({ createdAt: row.requestedAt, id: row.approvalId }),
      item: toApprovalItem,
      fetchJson: (filter, page) => history.listApprovalItems(filter, page),
      itemKeys: APPROVAL_ITEM_KEYS,
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
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<ApprovalItem>> {
    return this.list.page(query);
  }

  /** The page `execute` answers, as JSON text (the same text), read from items the storage renders: for the API. */
  async executeJson(query: Readonly<Record<string, unknown>>): Promise<string> {
    return this.list.pageJson(query);
  }
}
