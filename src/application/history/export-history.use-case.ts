import { inject, injectable } from 'inversify';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import type { Run } from '../../domain/run';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { RunRepository, type PageRequest, type RunFilter, type RunKey } from '../ports/run-repository';
import type { TextSink } from '../ports/text-sink';
import { QueryParser, type ParamSpecs } from '../query/query-params';
import { RUN_CSV_COLUMNS, runCsvLine, toExportFailure, toExportSteps } from './export-items';
import { toApprovalItem, toRunItem, toSendAttemptItem } from './items';
import { RUN_FILTER_PARAMS, toRunFilter } from './run-query';
import { timelineEvents, type StepEvent } from './timeline';

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
    const emit = (section: keyof ExportReport, first: boolean, value: unknown): Promise<void> => {
      report[section]++;
      return sink.write(`${first ? '' : ','}${JSON.stringify(this.redactor.redact(value))}`);
    };
    if (format === 'csv') {
      await sink.write(`${RUN_CSV_COLUMNS.join(',')}\n`);
      for await (const page of this.pages(filter)) {
        await sink.write(page.map((run) => `${runCsvLine(this.redactor.redact(toRunItem(run)))}\n`).join(''));
        report.runs += page.length;
        onProgress?.(report);
      }
      return report;
    }
    await sink.write('{"runs":[');
    let first = true;
    for await (const page of this.pages(filter)) {
      for (const run of page) {
        await emit('runs', first, toRunItem(run));
        first = false;
      }
      onProgress?.(report);
    }
    // The other sections need only the keys of each page, then read what they show.
    for (const section of SECTIONS) {
      await sink.write(`],"${section}":[`);
      first = true;
      for await (const keys of this.keyPages(filter)) {
        for (const value of await this.sectionItems(section, keys)) {
          await emit(section, first, value);
          first = false;
        }
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
        const streams = await this.runs.streams(ids);
        return page.flatMap((run) => {
          const events = timelineEvents(streams.get(run.runId) ?? [], this.explorer);
          return toExportSteps(run.runId, events.filter((e): e is StepEvent => e.kind === 'step'));
        });
      }
      case 'sends':
        return (await this.history.sendsOfRuns(ids)).map((s) => toSendAttemptItem(s, (n, c, h) => this.explorer.tx(n, c, h)));
      case 'approvals':
        return (await this.history.approvalsOfRuns(ids)).map(toApprovalItem);
      case 'failures': {
        const failed = page.filter((r) => r.status === 'failed' || r.status === 'dead_lettered');
        if (!failed.length) return [];
        const streams = await this.runs.streams(failed.map((r) => r.runId));
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
