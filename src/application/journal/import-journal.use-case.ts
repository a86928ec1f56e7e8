import { inject, injectable } from 'inversify';
import { ChainflowError, JournalRejectedError } from '../../domain/errors';
import type { JournalEvent } from '../../domain/journal/journal-event';
import { JournalWriter } from '../ports/journal-writer';
import { checkEvent } from './event-schema';

/** A line that cannot be text at all (its bytes are not valid UTF-8): refused, naming the line. */
export interface InvalidLine {
  readonly invalid: string;
}

/** NDJSON text that can be read more than once (validation first, then the import). */
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
  readonly phase: 'validate' | 'import';
  readonly lines: number;
  /** Valid events so far (validate), or events written so far (import). */
  readonly events: number;
  /** Import phase: the events to write in all. */
  readonly total?: number;
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
/** Up to this many validated events are kept for the import pass instead of reading and parsing them again. */
const KEEP_PARSED = 250_000;

/**
 * `chainflow journal import`: every line is validated first; if any is bad, each bad line is named with
 * its number and reason and nothing is imported. Then all events are appended as one transaction, so a
 * line the journal refuses (an unknown send, say) also leaves nothing behind. Idempotent.
 */
@injectable()
export class ImportJournal {
  constructor(@inject(JournalWriter) private readonly journal: JournalWriter) {}

  async execute(source: LineSource, onProgress?: (p: ImportProgress) => void): Promise<ImportReport> {
    const checked = await this.validate(source, onProgress);
    const blankLines: number[] = checked.parsed ? checked.blankLines : [];
    let lineNo = 0;
    const batches = async function* (): AsyncGenerator<JournalEvent[]> {
      if (checked.parsed) {
        for (let i = 0; i < checked.parsed.length; i += BATCH) yield checked.parsed.slice(i, i + BATCH);
        return;
      }
      let batch: JournalEvent[] = [];
      for await (const line of source.lines()) {
        lineNo++;
        // Validation refused every invalid line already; the file changed under the import if one shows up now.
        if (typeof line !== 'string') throw new ImportRejectedError([{ line: lineNo, reason: `${line.invalid} (the file changed during the import)` }]);
        if (!line.trim()) {
          blankLines.push(lineNo);
          continue;
        }
        batch.push(JSON.parse(line) as JournalEvent);
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    };
    try {
      const result = await this.journal.appendAll(batches(), (done) =>
        onProgress?.({ phase: 'import', lines: checked.lines, events: done.applied + done.duplicates, total: checked.events }));
      return { lines: checked.lines, events: checked.events, ...result };
    } catch (err) {
      if (err instanceof JournalRejectedError) {
        throw new ImportRejectedError([{ line: lineOfEvent(err.index, blankLines), reason: err.reason }]);
      }
      throw err;
    }
  }

  private async validate(source: LineSource, onProgress?: (p: ImportProgress) => void): Promise<Validated> {
    const problems: LineProblem[] = [];
    const blankLines: number[] = [];
    let parsed: JournalEvent[] | undefined = [];
    let bad = 0;
    let lines = 0;
    let events = 0;
    for await (const line of source.lines()) {
      lines++;
      if (typeof line === 'string' && !line.trim()) {
        blankLines.push(lines);
        continue;
      }
      const checked = checkLine(line);
      const reason = 'problem' in checked ? checked.problem : undefined;
      if (!reason && parsed) {
        parsed.push((checked as { event: JournalEvent }).event);
        if (parsed.length > KEEP_PARSED) parsed = undefined;
      }
      if (reason) {
        bad++;
        if (problems.length < MAX_REPORTED) problems.push({ line: lines, reason });
      } else {
        events++;
      }
      if (onProgress && lines % 50000 === 0) onProgress({ phase: 'validate', lines, events });
    }
    if (bad) throw new ImportRejectedError(problems, bad - problems.length);
    return { lines, events, parsed, blankLines };
  }
}

interface Validated {
  readonly lines: number;
  readonly events: number;
  /** Every event, parsed, when there were few enough to keep; otherwise the import reads the source again. */
  readonly parsed: JournalEvent[] | undefined;
  readonly blankLines: number[];
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
