import type { CursorCodec, CursorPosition } from '../../domain/cursor';
import { InvalidInputError } from '../../domain/errors';
import type { Redactor } from '../../domain/redactor';
import type { ListFilter } from '../ports/history-repository';
import type { ItemText, PageRequest } from '../ports/run-repository';
import { QueryParser, type ParamSpecs, type ParsedParams } from '../query/query-params';
import type { ListEnvelope } from './items';
import { CURSOR, HISTORY_LIMIT } from './run-query';

const SINCE = { kind: 'time', description: 'a duration back from now (24h, 7d) or an RFC 3339 timestamp' } as const;

/** The parameters of a history list: its filters, then since / until on its time field, limit and cursor. */
export function listParams(filters: ParamSpecs, timeField: string): ParamSpecs {
  return {
    ...filters,
    since: { ...SINCE, description: `${SINCE.description}; ${timeField} >= since` },
    until: { ...SINCE, description: `${SINCE.description}; ${timeField} <= until` },
    limit: HISTORY_LIMIT,
    cursor: CURSOR,
  };
}

export function toListFilter(params: ParsedParams, filters: ParamSpecs): ListFilter {
  const equals: Record<string, string | number> = {};
  for (const name of Object.keys(filters)) if (params[name] !== undefined) equals[name] = params[name]!;
  return { equals, since: params.since as number | undefined, until: params.until as number | undefined };
}

/**
 * One keyset-paged, redacted history list: validates the query, decodes the cursor (refused when malformed,
 * tampered or from another list), reads one row more than asked to learn whether a next page exists.
 */
export class KeysetList<Row, Item> {
  readonly params: ParamSpecs;
  private readonly parser: QueryParser;
  /** How a page's items, as JSON text, are redacted. */
  private readonly redactItems: (json: string) => string;

  constructor(
    private readonly options: {
      readonly list: string;
      readonly filters: ParamSpecs;
      readonly timeField: string;
      readonly fetch: (filter: ListFilter, page: PageRequest) => Promise<Row[]>;
      readonly position: (row: Row) => CursorPosition;
      readonly item: (row: Row) => Item;
      /** The same page with each row as the JSON text of its item, when the storage renders it (see pageJson). */
      readonly fetchJson?: (filter: ListFilter, page: PageRequest) => Promise<ItemText[]>;
      /** The keys of the items, when they are flat (see Redactor.itemsRedaction): their text is redacted by them. */
      readonly itemKeys?: readonly string[];
      readonly cursors: CursorCodec;
      readonly redactor: Redactor;
      readonly now: () => number;
    },
  ) {
    this.params = listParams(options.filters, options.timeField);
    this.parser = new QueryParser(this.params, options.now);
    const redactor = options.redactor;
    this.redactItems = options.itemKeys ? redactor.itemsRedaction(options.itemKeys) : (json) => redactor.redactJson(json);
  }

  async page(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<Item>> {
    const { filter, limit, after } = this.request(query);
    const rows = await this.options.fetch(filter, { limit: limit + 1, after });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => this.options.redactor.redact(this.options.item(row))),
      cursor: this.cursor(rows.length > limit && last ? this.options.position(last) : undefined),
      has_more: rows.length > limit,
    };
  }

  /**
   * The page `page` answers, as its JSON text (the same text JSON.stringify makes of it), from the items the storage
   * rendered (`fetchJson`): their text is redacted (Redactor.itemsRedaction, or redactJson without `itemKeys`) and
   * spliced into the envelope, so that a page's rows never become objects. Without `fetchJson`, the text of `page`.
   */
  async pageJson(query: Readonly<Record<string, unknown>>): Promise<string> {
    const fetchJson = this.options.fetchJson;
    if (!fetchJson) return JSON.stringify(await this.page(query));
    const { filter, limit, after } = this.request(query);
    const rows = await fetchJson(filter, { limit: limit + 1, after });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const items = this.redactItems(`[${page.map((row) => row.json).join(',')}]`);
    const cursor = this.cursor(rows.length > limit && last ? last.position : undefined);
    return `{"items":${items},"cursor":${JSON.stringify(cursor)},"has_more":${rows.length > limit}}`;
  }

  /** The query, validated, and its cursor decoded (refused when malformed, tampered or from another list). */
  private request(query: Readonly<Record<string, unknown>>): { filter: ListFilter; limit: number; after?: CursorPosition } {
    const params = this.parser.parse(query);
    const after = params.cursor === undefined ? undefined : this.options.cursors.decode(this.options.list, params.cursor as string);
    if (params.cursor !== undefined && !after) throw new InvalidInputError('cursor', 'malformed or tampered cursor');
    return { filter: toListFilter(params, this.options.filters), limit: params.limit as number, after };
  }

  /** The cursor of the next page, after `last` (null when there is none). */
  private cursor(last: CursorPosition | undefined): string | null {
    return last ? this.options.cursors.encode(this.options.list, last) : null;
  }
}
