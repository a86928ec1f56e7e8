import { inject, injectable } from 'inversify';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import { summarize } from '../../domain/spend/spend-totals';
import { Clock } from '../ports/clock';
import { SpendLedger } from '../ports/spend-ledger';
import { QueryParser } from '../query/query-params';
import { SPEND_FILTER_PARAMS, toSpendFilter } from './spend-query';
import { redactEntryItem, redactSummaryItem, toLedgerEntryItem, toSummaryItem, type LedgerEntryItem, type SpendSummaryItem } from './spend-items';

export interface SpendReport {
  /** Over the whole filtered ledger, whatever `limit`. */
  summary: SpendSummaryItem;
  /** The newest entries first, at most `limit`. */
  entries: LedgerEntryItem[];
  /** The explorer link of each entry's transaction (null where the network has no known explorer). */
  explorer_urls: Record<string, string | null>;
}

export const SPEND_PARAMS = {
  ...SPEND_FILTER_PARAMS,
  limit: { kind: 'limit', min: 0, max: 500, default: 50, description: 'entries to return, 0 to 500 (0: the summary alone)' },
} as const;

/** `GET /api/spend` and `chainflow spend`: the exact summary per dimension plus the newest entries. */
@injectable()
export class GetSpend {
  private readonly parser: QueryParser;

  constructor(
    @inject(SpendLedger) private readonly ledger: SpendLedger,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(ExplorerLinks) private readonly explorer: ExplorerLinks,
    @inject(Clock) clock: Clock,
  ) {
    this.parser = new QueryParser(SPEND_PARAMS, () => clock.now());
  }

  /** `query`: raw parameters (HTTP query or CLI flags), validated here. */
  async execute(query: Readonly<Record<string, unknown>>): Promise<SpendReport> {
    const params = this.parser.parse(query);
    const filter = toSpendFilter(params);
    const [combos, latest] = await Promise.all([this.ledger.totals(filter), this.ledger.latest(filter, params.limit as number)]);
    const redact = (text: string): string => this.redactor.redactText(text);
    const entries = latest.map((e) => redactEntryItem(toLedgerEntryItem(e), redact));
    const explorer_urls: Record<string, string | null> = {};
    for (const e of latest) explorer_urls[e.txHash] = this.explorer.tx(e.network, e.chainId, e.txHash);
    return { summary: redactSummaryItem(toSummaryItem(summarize(combos)), redact), entries, explorer_urls };
  }
}
