import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { InvalidInputError } from '../../domain/errors';
import { Redactor } from '../../domain/redactor';
import { Clock } from '../ports/clock';
import { RunRepository } from '../ports/run-repository';
import { QueryParser } from '../query/query-params';
import { toRunItem, type ListEnvelope, type RunItem } from './items';
import { RUN_LIST_PARAMS, toRunFilter } from './run-query';

/** Lists runs, newest first, filtered by any SPEC run filter, one keyset page at a time, redacted. */
@injectable()
export class ListRuns {
  private readonly parser: QueryParser;

  constructor(
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(CursorCodec) private readonly cursors: CursorCodec,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.parser = new QueryParser(RUN_LIST_PARAMS, () => clock.now());
  }

  /** `query`: raw parameters (HTTP query or CLI flags), validated here. */
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<RunItem>> {
    const params = this.parser.parse(query);
    const limit = params.limit as number;
    const after = params.cursor === undefined ? undefined : this.cursors.decode('runs', params.cursor as string);
    if (params.cursor !== undefined && !after) throw new InvalidInputError('cursor', 'malformed or tampered cursor');
    const rows = await this.runs.list(toRunFilter(params), { limit: limit + 1, after });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit;
    return {
      items: page.map((run) => this.redactor.redact(toRunItem(run))),
      cursor: hasMore && last ? this.cursors.encode('runs', { createdAt: last.createdAt, id: last.runId }) : null,
      has_more: hasMore,
    };
  }
}
