import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import { TOPUP_OUTCOMES, type TopupAttempt } from '../../domain/relayers/topup';
import type { ListEnvelope } from '../history/items';
import { KeysetList } from '../history/keyset-list';
import { Clock } from '../ports/clock';
import { TopupAudit } from '../ports/topup-audit';
import type { ParamSpecs } from '../query/query-params';
import { toTopupItem, type TopupItem } from './relayer-items';

/** Filters of the top-up trail, each named as the item field it filters. */
export const TOPUP_FILTERS: ParamSpecs = {
  from: { kind: 'text', description: 'funding relayer' },
  to: { kind: 'text', description: 'relayer funded' },
  network: { kind: 'text', description: 'network name' },
  outcome: { kind: 'enum', values: TOPUP_OUTCOMES, description: 'how the attempt ended' },
  by: { kind: 'text', description: 'who asked for the top-up' },
};

/** `GET /api/relayers/topups` and `chainflow relayers history`: the operator audit trail of top-ups, newest first. */
@injectable()
export class ListTopups {
  private readonly list: KeysetList<TopupAttempt, TopupItem>;

  constructor(
    @inject(TopupAudit) audit: TopupAudit,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
    @inject(ExplorerLinks) explorer: ExplorerLinks,
  ) {
    const redact = (text: string): string => redactor.redactText(text);
    this.list = new KeysetList<TopupAttempt, TopupItem>({
      list: 'topups',
      filters: TOPUP_FILTERS,
      timeField: 'at',
      fetch: (filter, page) => audit.list(filter, page),
      position: (row) => ({ createdAt: row.at, id: row.topupId }),
      item: (row) => toTopupItem(row, row.txHash === null ? null : explorer.tx(row.network, row.chainId, row.txHash), redact),
      cursors,
      // Items are redacted field by field (names and texts, never amounts, addresses or hashes) when they are built.
      redactor: new Redactor([]),
      now: () => clock.now(),
    });
  }

  /** The query parameters this list takes (for the API's declarations). */
  get params(): ParamSpecs {
    return this.list.params;
  }

  /** `query`: raw parameters (HTTP query or CLI flags), validated here. */
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<TopupItem>> {
    return this.list.page(query);
  }
}
