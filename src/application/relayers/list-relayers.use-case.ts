import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { InvalidInputError } from '../../domain/errors';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import type { ListEnvelope } from '../history/items';
import { CURSOR, HISTORY_LIMIT } from '../history/run-query';
import { Clock } from '../ports/clock';
import { QueryParser, type ParamSpecs } from '../query/query-params';
import { RelayerBook } from './relayer-book';
import { toRelayerItem, type RelayerItem } from './relayer-items';

export const RELAYER_LIST_PARAMS = {
  network: { kind: 'text', description: 'only the relayers of this network' },
  limit: HISTORY_LIMIT,
  cursor: CURSOR,
} as const;

/**
 * `GET /api/relayers` and `chainflow relayers` (CONTRACT 9): every configured relayer, by name, with its address,
 * live balance (cached at most 15 s, each read bounded: a network that does not answer gives `balance_error` and
 * the rest of the row still answers), low-balance flag, recent gas spend and funding plan.
 */
@injectable()
export class ListRelayers {
  private readonly parser: QueryParser;

  constructor(
    @inject(RelayerBook) private readonly book: RelayerBook,
    @inject(CursorCodec) private readonly cursors: CursorCodec,
    @inject(ExplorerLinks) private readonly explorer: ExplorerLinks,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.parser = new QueryParser(RELAYER_LIST_PARAMS, () => clock.now());
  }

  /** `query`: raw parameters (HTTP query or CLI flags), validated here. */
  /** The query parameters this list takes (for the API's declarations). */
  get params(): ParamSpecs {
    return RELAYER_LIST_PARAMS;
  }

  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<RelayerItem>> {
    const params = this.parser.parse(query);
    const limit = params.limit as number;
    // Relayers are listed by name; the cursor carries the last name shown.
    const after = params.cursor === undefined ? undefined : this.cursors.decodeKey('relayers', params.cursor as string);
    if (params.cursor !== undefined && after === undefined) throw new InvalidInputError('cursor', 'malformed or tampered cursor');
    const names = this.book.names(params.network as string | undefined).filter((n) => after === undefined || n > after);
    const page = names.slice(0, limit);
    const hasMore = names.length > limit;
    const redact = (text: string): string => this.redactor.redactText(text);
    const statuses = await this.book.statuses(page, 'read');
    return {
      items: statuses.map((s) => toRelayerItem(s, s.address === null ? null : this.explorer.address(s.network, s.chainId, s.address), redact)),
      cursor: hasMore ? this.cursors.encodeKey('relayers', page[page.length - 1]!) : null,
      has_more: hasMore,
    };
  }
}
