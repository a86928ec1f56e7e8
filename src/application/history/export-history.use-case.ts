import { inject, injectable } from 'inversify';
import type { CursorPosition } from '../../domain/cursor';
import { ExplorerLinks } from '../../domain/explorer';
import { Redactor } from '../../domain/redactor';
import type { Run } from '../../domain/run';
import { Clock } from '../ports/clock';
import { HistoryRepository } from '../ports/history-repository';
import { RunRepository, type PageRequest, type RunFilter, type RunKey } from '../ports/run-repository';
import { Spools, type Spool } from '../ports/spool';
import type { TextSink } from '../ports/text-sink';
import { QueryParser, type ParamSpecs } from '../query/query-params';
import { FAILURE_EVENT_TYPES, RUN_CSV_COLUMNS, runCsvLine, toExportFailure } from './export-items';
import { toApprovalItem, toRunItem } from './items';
import { RUN_FILTER_PARAMS, toRunFilter } from './run-query';

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
/**
 * Pages of a section read again that are asked for ahead of the one being written (see readAhead). Three made no
 * faster export of 1M runs than two, and its peak RSS grew by about 10 MB (docs/benchmarks.md).
 */
const READ_AHEAD = 2;
/**
 * Pages of runs asked for ahead of the one being written: their reads are a chain (each starts after the last row
 * of the one before), kept going while the caller writes.
 */
const RUN_PAGES_AHEAD = 2;
/** JSON items joined into one write. */
const ITEMS_PER_WRITE = 64;
/** The sections after `runs` read again per page of runs, in the order of the JSON document. */
const READ_AGAIN = ['steps', 'sends'] as const;
/** The sections after those, gathered while `runs` is written (they are small: a run has few of each). */
const GATHERED = ['approvals', 'failures'] as const;

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
    const emitTexts = async (section: keyof ExportReport, texts: readonly string[]): Promise<void> => {
      report[section] += texts.length;
      for (const text of this.redactedTexts(texts)) await write(text);
    };
    // A page of runs as their items' text (rendered by the storage), with what the gathered sections show of it. The
    // pages are a chain of reads (each starts after the last row of the one before), so a page's gathered sections
    // are read beside the next page, not before it: the chain never waits for them.
    const pages = async function* (this: ExportHistory): AsyncGenerator<{ texts: string[]; keys: RunKey[]; gathered: Promise<unknown[][]> }> {
      for await (const items of keysetPages((page) => this.runs.listItems(filter, page), (item) => item.position)) {
        const keys = items.map((i): RunKey => ({ runId: i.position.id, createdAt: i.position.createdAt, status: i.status }));
        const gathered = Promise.all(GATHERED.map((section) => this.sectionItems(section, keys)));
        // Handled here too: a failure is thrown where it is awaited, not reported unhandled before.
        gathered.catch(() => undefined);
        yield { texts: items.map((i) => i.json), keys, gathered };
      }
    }.call(this);
    await sink.write('{"runs":[');
    for await (const { texts, keys, gathered } of ahead(pages, RUN_PAGES_AHEAD)) {
      await emitTexts('runs', texts);
      // The sections read again need the runs' ids alone (ids hold no tab: ID_PATTERN).
      await spooled.keys.append(keys.map((k) => k.runId).join('\t'));
      const sections = await gathered;
      for (const [i, section] of GATHERED.entries()) {
        report[section] += sections[i]!.length;
        for (const text of this.itemTexts(sections[i]!)) await spooled[section].append(text);
      }
      onProgress?.(report);
    }
    for (const section of READ_AGAIN) {
      await sink.write(`],"${section}":[`);
      first = true;
      const ids = async function* (): AsyncGenerator<string[]> {
        for await (const record of spooled.keys.records()) yield record.split('\t');
      };
      for await (const { count, texts } of readAhead(ids(), (page) => this.readAgain(section, page), READ_AHEAD)) {
        report[section] += count;
        for (const text of texts) await write(text);
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

  /** Items that are JSON text already (not yet redacted), in the pieces `itemTexts` makes: a few dozen to a text, redacted. */
  private *redactedTexts(texts: readonly string[]): Generator<string> {
    for (let i = 0; i < texts.length; i += ITEMS_PER_WRITE) {
      yield this.redactor.redactJson(`[${texts.slice(i, i + ITEMS_PER_WRITE).join(',')}]`).slice(1, -1);
    }
  }

  /**
   * A page of a section read again, as the JSON text `write` takes (redacted, a few dozen items to a text), both
   * rendered by the storage: the sends as the txs list renders them, the steps as the storage keeps them (a run's
   * step runs as `exportSteps` folds its stream).
   */
  private async readAgain(section: (typeof READ_AGAIN)[number], ids: string[]): Promise<{ count: number; texts: string[] }> {
    if (section === 'sends') {
      const items = await this.history.sendItemsOfRuns(ids, this.explorer);
      return { count: items.length, texts: [...this.redactedTexts(items)] };
    }
    const { count, texts } = await this.runs.stepItemsOfRuns(ids);
    return { count, texts: [...this.redactedTexts(texts)] };
  }

  private async sectionItems(section: (typeof GATHERED)[number], page: RunKey[]): Promise<unknown[]> {
    const ids = page.map((r) => r.runId);
    switch (section) {
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
    return keysetPages((page) => this.runs.list(filter, page), (run) => ({ createdAt: run.createdAt, id: run.runId }));
  }
}

/**
 * `source`, read `depth` items ahead: the next item is asked for as soon as one is handed out, so that its reads run
 * while the caller works on the current one (and, deeper, so that a chain of reads never waits for the caller).
 */
async function* ahead<T>(source: AsyncGenerator<T>, depth = 1): AsyncGenerator<T> {
  const queue: Promise<IteratorResult<T>>[] = [];
  const pull = (): void => {
    const next = source.next();
    // Handled here too: a failure is thrown where it is awaited, not reported unhandled while an earlier item is.
    next.catch(() => undefined);
    queue.push(next);
  };
  for (let i = 0; i < depth; i++) pull();
  for (;;) {
    const item = await queue.shift()!;
    if (item.done) return;
    pull();
    yield item.value;
  }
}

/**
 * `read` of each key of `source`, in order, up to `depth` of them asked for at once: the storage reads the next
 * pages (side by side where it can) while the caller works on the current one.
 */
async function* readAhead<K, V>(source: AsyncIterator<K>, read: (key: K) => Promise<V>, depth: number): AsyncGenerator<V> {
  const pending: Promise<V>[] = [];
  let exhausted = false;
  try {
    for (;;) {
      while (!exhausted && pending.length < depth) {
        const next = await source.next();
        if (next.done) exhausted = true;
        else {
          const value = read(next.value);
          // Handled here too, so that a failure is not reported unhandled while an earlier page is awaited.
          value.catch(() => undefined);
          pending.push(value);
        }
      }
      const value = pending.shift();
      if (!value) return;
      yield await value;
    }
  } finally {
    await source.return?.();
  }
}

/** Every page `read` answers, `PAGE` rows at a time, each page read after the `position` of the last row. */
async function* keysetPages<T>(read: (page: PageRequest) => Promise<T[]>, position: (row: T) => CursorPosition): AsyncGenerator<T[]> {
  let after: CursorPosition | undefined;
  for (;;) {
    const page = await read({ limit: PAGE, after });
    if (page.length) yield page;
    if (page.length < PAGE) return;
    after = position(page[page.length - 1]!);
  }
}
