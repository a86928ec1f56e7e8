import { inject, injectable } from 'inversify';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import type { Run } from '../../domain/run';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { RunRepository, type PageRequest, type RunFilter, type RunKey } from '../ports/run-repository';
import { Spools, type Spool } from '../ports/spool';
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
/** The sections after `runs` read again per page of runs, in the order of the JSON document. */
const READ_AGAIN = ['steps', 'sends'] as const;
/** The sections after those, gathered while `runs` is written (they are small: a run has few of each). */
const GATHERED = ['approvals', 'failures'] as const;
type Section = (typeof READ_AGAIN)[number] | (typeof GATHERED)[number];

/**
 * The redacted audit export: every run matching the run filters, streamed. CSV is one row per run; JSON is
 * `{ runs, steps, sends, approvals, failures }`, written one section at a time, memory never holding more than a
 * page. The runs are read once: while `runs` is written, the keys of each page are spooled (scratch files, see
 * Spools), and so are its approvals and failures; `steps` and `sends` then read each page again from those keys.
 * Every section thus shows exactly the runs of `runs`, even while the journal grows, and the filtered runs are not
 * paged through once per section (each pass cost about as much as reading the keys of every run: a fifth of a 1M
 * JSON export).
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
    @inject(Spools) private readonly spools: Spools,
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
    const opened: Spool[] = [];
    const open = async (): Promise<Spool> => {
      const spool = await this.spools.open();
      opened.push(spool);
      return spool;
    };
    try {
      await this.writeJson(filter, sink, report, { keys: await open(), approvals: await open(), failures: await open() }, onProgress);
    } finally {
      await Promise.all(opened.map((spool) => spool.discard()));
    }
    return report;
  }

  private async writeJson(
    filter: RunFilter, sink: TextSink, report: ExportReport, spooled: Record<'keys' | (typeof GATHERED)[number], Spool>,
    onProgress?: (report: ExportReport) => void,
  ): Promise<void> {
    let first = true;
    const write = async (text: string): Promise<void> => {
      await sink.write(first ? text : `,${text}`);
      first = false;
    };
    const emit = async (section: keyof ExportReport, values: readonly unknown[]): Promise<void> => {
      report[section] += values.length;
      for (const text of this.itemTexts(values)) await write(text);
    };
    // A page of runs, with what the gathered sections show of it (read ahead, with the page, on SQLite's thread).
    const pages = async function* (this: ExportHistory): AsyncGenerator<{ runs: Run[]; keys: RunKey[]; gathered: unknown[][] }> {
      for await (const runs of this.pages(filter)) {
        const keys = runs.map((r): RunKey => ({ runId: r.runId, createdAt: r.createdAt, status: r.status }));
        yield { runs, keys, gathered: await Promise.all(GATHERED.map((section) => this.sectionItems(section, keys))) };
      }
    }.call(this);
    await sink.write('{"runs":[');
    for await (const { runs, keys, gathered } of ahead(pages)) {
      await emit('runs', runs.map(toRunItem));
      await spooled.keys.append(JSON.stringify(keys.map((k) => [k.runId, k.createdAt, k.status])));
      for (const [i, section] of GATHERED.entries()) {
        report[section] += gathered[i]!.length;
        for (const text of this.itemTexts(gathered[i]!)) await spooled[section].append(text);
      }
      onProgress?.(report);
    }
    for (const section of READ_AGAIN) {
      await sink.write(`],"${section}":[`);
      first = true;
      const items = async function* (this: ExportHistory): AsyncGenerator<unknown[]> {
        for await (const record of spooled.keys.records()) {
          const keys = (JSON.parse(record) as [string, number, RunKey['status']][]).map(([runId, createdAt, status]) => ({ runId, createdAt, status }));
          yield await this.sectionItems(section, keys);
        }
      }.call(this);
      for await (const values of ahead(items)) {
        await emit(section, values);
        onProgress?.(report);
      }
    }
    for (const section of GATHERED) {
      await sink.write(`],"${section}":[`);
      first = true;
      for await (const text of spooled[section].records()) await write(text);
    }
    await sink.write(']}');
  }

  /**
   * Items as JSON, redacted, a few dozen to a text joined by commas: pieces of some tens of KB, not one string per
   * page (a string past 128 KB lives in V8's large-object space until the next full collection). One
   * JSON.stringify per slice, its brackets cut off.
   */
  private *itemTexts(values: readonly unknown[]): Generator<string> {
    for (let i = 0; i < values.length; i += ITEMS_PER_WRITE) {
      yield JSON.stringify(values.slice(i, i + ITEMS_PER_WRITE).map((value) => this.redactor.redact(value))).slice(1, -1);
    }
  }

  private async sectionItems(section: Section, page: RunKey[]): Promise<unknown[]> {
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
