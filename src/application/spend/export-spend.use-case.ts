import { inject, injectable } from 'inversify';
import { Redactor } from '../../domain/redactor';
import { csvCell } from '../history/export-items';
import { Clock } from '../ports/clock';
import { SpendLedger, type SpendFilter } from '../ports/spend-ledger';
import type { TextSink } from '../ports/text-sink';
import { QueryParser } from '../query/query-params';
import { redactEntryItem, SPEND_CSV_COLUMNS, toLedgerEntryItem, type LedgerEntryItem } from './spend-items';
import { SPEND_FILTER_PARAMS, toSpendFilter } from './spend-query';

export type SpendExportFormat = 'csv' | 'json';
const PAGE = 1000;

export const SPEND_EXPORT_PARAMS = {
  format: { kind: 'enum', values: ['csv', 'json'], description: 'csv or json' },
  ...SPEND_FILTER_PARAMS,
} as const;

/**
 * `chainflow spend export`: every filtered ledger entry, oldest first, streamed as CSV (SPEC's columns; the entries that
 * count) or JSON (reorged entries too, marked `reorged: true`).
 */
@injectable()
export class ExportSpend {
  private readonly parser: QueryParser;

  constructor(
    @inject(SpendLedger) private readonly ledger: SpendLedger,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.parser = new QueryParser(SPEND_EXPORT_PARAMS, () => clock.now());
  }

  /** Validates the request before anything is written. */
  parse(query: Readonly<Record<string, unknown>>): { filter: SpendFilter; format: SpendExportFormat } {
    const params = this.parser.parse(query);
    return { filter: toSpendFilter(params), format: (params.format as SpendExportFormat | undefined) ?? 'csv' };
  }

  /** `onProgress(entries)`: called after each page written. */
  async execute(filter: SpendFilter, format: SpendExportFormat, sink: TextSink, onProgress?: (entries: number) => void): Promise<number> {
    let count = 0;
    if (format === 'csv') await sink.write(`${SPEND_CSV_COLUMNS.join(',')}\n`);
    else await sink.write('{"entries":[');
    for await (const page of this.ledger.scan(filter, PAGE)) {
      // The CSV's columns are a stable contract without `reorged`: it lists the entries that count (CONTRACT 8.6).
      const kept = format === 'csv' ? page.filter((e) => e.reorged !== true) : page;
      const items = kept.map((e) => redactEntryItem(toLedgerEntryItem(e), (text) => this.redactor.redactText(text)));
      const text = format === 'csv'
        ? items.map((item) => `${csvLine(item)}\n`).join('')
        : items.map((item, i) => `${count + i === 0 ? '' : ','}\n${JSON.stringify(item)}`).join('');
      count += items.length;
      await sink.write(text);
      onProgress?.(count);
    }
    if (format === 'json') await sink.write(count ? '\n]}\n' : ']}\n');
    return count;
  }
}

function csvLine(item: LedgerEntryItem): string {
  return SPEND_CSV_COLUMNS.map((c) => csvCell(String(item[c]))).join(',');
}
