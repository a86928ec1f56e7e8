import { inject, injectable } from 'inversify';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import type { Run } from '../../domain/run';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { RunRepository, type PageRequest, type RunFilter, type RunKey } from '../ports/run-repository';
import type { TextSink } from '../ports/text-sink';
import { QueryParser, type ParamSpecs } from '../query/query-params';
import { FAILURE_EVENT_TYPES, RUN_CSV_COLUMNS, runCsvLine, toExportFailure, toExportSteps } from './export-items';
import { toApprovalItem, toRunItem, toSendAttemptItem } from './items';
import { RUN_FILTER_PARAMS, toRunFilter } from './run-query';
import { STEP_EVENT_TYPES, timelineSteps } from './timeline';

export type ExportFormat = 'json' | 'csv';

export const EXPORT_PARAMS: ParamSpecs = {
  ...RUN_FILTER_PARAMS,
  format: { kind: 'enum', values: ['json', 'csv'], description: 'json ({ runs, steps, sends, approvals, failures }) or csv (one row per run)' },
};

export interface ExportReport {
  runs: number;
  steps: number;
  sends: number;
  approvals: number;
  failures: number;
}

/** Runs read per page: memory stays bounded by one page, whatever the size of the history. */
const PAGE = 500;
/** JSON items joined into one write. */
const ITEMS_PER_WRITE = 64;
/** The sections after `runs`, in the order of the JSON document. */
const SECTIONS = ['steps', 'sends', 'approvals', 'failures'] as const;

/**
 * The redacted audit export: every run matching the run filters, streamed. CSV is one row per run; JSON is
 * `{ runs, steps, sends, approvals, failures }`, written one section at a time (each section pages through the
 * filtered runs again, so memory never holds more than a page).
 */
@injectable()
export class ExportHistory {
  private readonly parser: QueryParser;

  constructor(
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(HistoryRepository) private readonly history: HistoryRepository,
    @inject(ExplorerLinks) private readonly explorer: ExplorerLinks,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.parser = new QueryParser(EXPORT_PARAMS, () => clock.now());
  }

  /** Validates the query (run filters and `format`, default json) before anything is written. */
  parse(query: Readonly<Record<string, unknown>>): { filter: RunFilter; format: ExportFormat } {
    const params = this.parser.parse(query);
    return { filter: toRunFilter(params), format: (params.format as ExportFormat | undefined) ?? 'json' };
  }

  async execute(filter: RunFilter, format: ExportFormat, sink: TextSink, onProgress?: (report: ExportReport) => void): Promise<ExportReport> {
    const report: ExportReport = { runs: 0, steps: 0, sends: 0, approvals: 0, failures: 0 };
    if (format === 'csv') {
      await sink.write(`${RUN_CSV_COLUMNS.join(',')}\n`);
      for await (const page of ahead(this.pages(filter))) {
        await sink.write(page.map((run) => `${runCsvLine(this.redactor.redact(toRunItem(run)))}\n`).join(''));
        report.runs += page.length;
        onProgress?.(report);
      }
      return report;
    }
    // A page's items are written a few dozen at a time, redacted, joined by commas: pieces of some tens of KB, not
    // one string per page (a string past 128 KB lives in V8's large-object space until the next full collection).
    let first = true;
    const emit = async (section: keyof ExportReport, values: readonly unknown[]): Promise<void> => {
      report[section] += values.length;
      for (let i = 0; i < values.length; i += ITEMS_PER_WRITE) {
        // One JSON.stringify for the slice (its brackets cut off), not one per item joined by commas.
        const text = JSON.stringify(values.slice(i, i + ITEMS_PER_WRITE).map((value) => this.redactor.redact(value))).slice(1, -1);
        await sink.write(first ? text : `,${text}`);
        first = false;
      }
    };
    await sink.write('{"runs":[');
    for await (const page of ahead(this.pages(filter))) {
      await emit('runs', page.map(toRunItem));
      onProgress?.(report);
    }
    // The other sections need only the keys of each page, then read what they show. The next page is read while
    // this one is written (the driver works on its own thread meanwhile).
    for (const section of SECTIONS) {
      await sink.write(`],"${section}":[`);
      first = true;
      const pages = async function* (this: ExportHistory): AsyncGenerator<unknown[]> {
        for await (const keys of this.keyPages(filter)) yield await this.sectionItems(section, keys);
      }.call(this);
      for await (const items of ahead(pages)) {
        await emit(section, items);
        onProgress?.(report);
      }
    }
    await sink.write(']}');
    return report;
  }

  private async sectionItems(section: (typeof SECTIONS)[number], page: RunKey[]): Promise<unknown[]> {
    const ids = page.map((r) => r.runId);
    switch (section) {
      case 'steps': {
        // Only the events that make steps are read, and the stream's projections are not replayed (see timelineSteps).
        const streams = await this.runs.streams(ids, STEP_EVENT_TYPES);
        return page.flatMap((run) => toExportSteps(run.runId, timelineSteps(streams.get(run.runId) ?? [])));
      }
      case 'sends':
        return (await this.history.sendsOfRuns(ids)).map((s) => toSendAttemptItem(s, (n, c, h) => this.explorer.tx(n, c, h)));
      case 'approvals':
        return (await this.history.approvalsOfRuns(ids)).map(toApprovalItem);
      case 'failures': {
        const failed = page.filter((r) => r.status === 'failed' || r.status === 'dead_lettered');
        if (!failed.length) return [];
        const streams = await this.runs.streams(failed.map((r) => r.runId), FAILURE_EVENT_TYPES);
        return failed.map((run) => toExportFailure(run, streams.get(run.runId) ?? []));
      }
    }
  }

  /** The filtered runs, newest first, a keyset page at a time. */
  private pages(filter: RunFilter): AsyncGenerator<Run[]> {
    return keysetPages((page) => this.runs.list(filter, page));
  }

  /** The same pages, keys only. */
  private keyPages(filter: RunFilter): AsyncGenerator<RunKey[]> {
    return keysetPages((page) => this.runs.listKeys(filter, page));
  }
}

/**
 * `source`, read one item ahead: the next item is asked for as soon as the current one is handed out, so that its
 * reads run while the caller works on the current one.
 */
async function* ahead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const item = await next;
      if (item.done) return;
      next = source.next();
      yield item.value;
    }
  } finally {
    // Stopped early (the sink failed): the read under way is let go, its failure is not left unhandled.
    next.catch(() => undefined);
  }
}

async function* keysetPages<T extends { createdAt: number; runId: string }>(read: (page: PageRequest) => Promise<T[]>): AsyncGenerator<T[]> {
  let after: { createdAt: number; id: string } | undefined;
  for (;;) {
    const page = await read({ limit: PAGE, after });
    if (page.length) yield page;
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = { createdAt: last.createdAt, id: last.runId };
  }
}
