import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { Redactor } from '../../domain/redactor';
import type { Run } from '../../domain/run';
import { Clock } from '../ports/clock';
import type { ListFilter } from '../ports/history-repository';
import { RunRepository, type RunFilter } from '../ports/run-repository';
import { toRunItem, type ListEnvelope, type RunItem, RUN_ITEM_KEYS } from './items';
import { KeysetList } from './keyset-list';
import type { ParamSpecs } from '../query/query-params';
import { RUN_FIELD_FILTERS, toRunFilter } from './run-query';

/** Lists runs, newest first, filtered by any SPEC run filter, one keyset page at a time, redacted. */
@injectable()
export class ListRuns {
  private readonly list: KeysetList<Run, RunItem>;

  constructor(
    @inject(RunRepository) runs: RunRepository,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.list = new KeysetList<Run, RunItem>({
      list: 'runs',
      filters: RUN_FIELD_FILTERS,
      timeField: 'created_at',
      fetch: (filter, page) => runs.list(runFilterOf(filter), page),
      fetchJson: (filter, page) => runs.listItems(runFilterOf(filter), page),
      itemKeys: RUN_ITEM_KEYS,
      position: (run) => ({ createdAt: run.createdAt, id: run.runId }),
      item: toRunItem,
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
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<RunItem>> {
    return this.list.page(query);
  }

  /** The page `execute` answers, as JSON text (the same text), read from items the storage renders: for the API. */
  async executeJson(query: Readonly<Record<string, unknown>>): Promise<string> {
    return this.list.pageJson(query);
  }
}

function runFilterOf(filter: ListFilter): RunFilter {
  return toRunFilter({ ...filter.equals, since: filter.since, until: filter.until });
}
