import { inject, injectable } from 'inversify';
import { ChainflowError, JournalRejectedError } from '../../domain/errors';
import type { JournalEvent } from '../../domain/journal/journal-event';
import { JournalWriter } from '../ports/journal-writer';
import { checkEvent } from './event-schema';

/** A line that cannot be text at all (its bytes are not valid UTF-8): refused, naming the line. */
export interface InvalidLine {
  readonly invalid: string;
}

/** NDJSON text that can be read more than once (a second time only to name every bad line of a refused import). */
export interface LineSource {
  lines(): AsyncIterable<string | InvalidLine>;
}

export interface LineProblem {
  readonly line: number;
  readonly reason: string;
}

/** An import refused as a whole: nothing was imported. */
export class ImportRejectedError extends ChainflowError {
  readonly code = 'journal_rejected' as const;
  constructor(readonly problems: readonly LineProblem[], readonly more = 0) {
    super(problems.map((p) => `line ${p.line}: ${p.reason}`).join('\n') + (more ? `\n… and ${more} more bad lines` : ''));
  }
}

export interface ImportProgress {
  readonly lines: number;
  /** Events written so far. */
  readonly events: number;
}

export interface ImportReport {
  readonly lines: number;
  readonly events: number;
  readonly applied: number;
  readonly duplicates: number;
}

/** Reported bad lines are capped so that a wrong file does not flood the terminal. */
const MAX_REPORTED = 100;
/** Events appended per batch inside the import's one transaction. */
const BATCH = 5000;

/**
 * `chainflow journal import`: one transaction for the whole file, so that an import brings in all of it or nothing.
 * The file is read once: each line is checked as it is read and its event written in that transaction; at the first
 * bad line writing stops, the rest of the file is still checked, every bad line is named with its number and reason,
 * and the transaction is rolled back. An event the journal refuses (an unknown send, say) rolls it back too. Idempotent.
 */
@injectable()
export class ImportJournal {
  constructor(@inject(JournalWriter) private readonly journal: JournalWriter) {}

  async execute(source: LineSource, onProgress?: (p: ImportProgress) => void): Promise<ImportReport> {
    const read = { lines: 0, events: 0, blankLines: [] as number[] };
    const batches = async function* (): AsyncGenerator<JournalEvent[]> {
      const problems: LineProblem[] = [];
      let bad = 0;
      let batch: JournalEvent[] = [];
      for await (const line of source.lines()) {
        const lineNo = ++read.lines;
        if (typeof line === 'string' && !line.trim()) {
          read.blankLines.push(lineNo);
          continue;
        }
        const checked = checkLine(line);
        if ('problem' in checked) {
          if (++bad <= MAX_REPORTED) problems.push({ line: lineNo, reason: checked.problem });
          continue;
        }
        read.events++;
        // After a bad line nothing more is written (the transaction is rolled back): the rest is only checked.
        if (bad) continue;
        batch.push(checked.event);
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (bad) throw new ImportRejectedError(problems, bad - problems.length);
      if (batch.length) yield batch;
    };
    try {
      const result = await this.journal.appendAll(batches(), (done) => onProgress?.({ lines: read.lines, events: done.applied + done.duplicates }));
      return { lines: read.lines, events: read.events, ...result };
    } catch (err) {
      if (!(err instanceof JournalRejectedError)) throw err;
      // The journal refused an event before the rest of the file was read: its bad lines, if any, are named instead,
      // as they would be by a check of every line before any write.
      await this.checkAll(source);
      throw new ImportRejectedError([{ line: lineOfEvent(err.index, read.blankLines), reason: err.reason }]);
    }
  }

  /** Checks every line of `source`, refusing the import (ImportRejectedError) if any is bad. */
  private async checkAll(source: LineSource): Promise<void> {
    const problems: LineProblem[] = [];
    let bad = 0;
    let lineNo = 0;
    for await (const line of source.lines()) {
      lineNo++;
      if (typeof line === 'string' && !line.trim()) continue;
      const checked = checkLine(line);
      if ('problem' in checked && ++bad <= MAX_REPORTED) problems.push({ line: lineNo, reason: checked.problem });
    }
    if (bad) throw new ImportRejectedError(problems, bad - problems.length);
  }
}

/** One non-blank line: the event it holds, or why it is refused. */
function checkLine(line: string | InvalidLine): { event: JournalEvent } | { problem: string } {
  if (typeof line !== 'string') return { problem: line.invalid };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return { problem: notJson(e) };
  }
  return checkEvent(value);
}

/** Why a line is not JSON, by position only: the parser's message quotes the line (which may hold a secret). */
function notJson(error: unknown): string {
  const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  return position === undefined ? 'not valid JSON' : `not valid JSON (at column ${Number(position) + 1})`;
}

/** The line number of the index-th event, given the (sorted) numbers of the blank lines skipped. */
function lineOfEvent(index: number, blankLines: readonly number[]): number {
  let line = index + 1;
  for (const blank of blankLines) {
    if (blank <= line) line++;
    else break;
  }
  return line;
}
