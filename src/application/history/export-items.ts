import type { JournalEvent } from '../../domain/journal/journal-event';
import type { RunKey } from '../ports/run-repository';
import { parseRfc3339, toIso } from '../../domain/time';
import { toRunItem, type RunItem } from './items';

/** A failed or dead-lettered run, with the error that ended it. */
export interface ExportFailure {
  run_id: string;
  workflow: string;
  status: string;
  error_kind: string | null;
  error_message: string | null;
  created_at: string;
  finished_at: string | null;
}

/** The journal event types `toExportFailure` reads. */
export const FAILURE_EVENT_TYPES: readonly JournalEvent['type'][] = ['run.started', 'step.finished', 'run.finished'];

/** The failure of a run, read from its stream alone (the error of run.finished, else of its last failed step). */
export function toExportFailure(run: RunKey, stream: readonly JournalEvent[]): ExportFailure {
  const failure: ExportFailure = {
    run_id: run.runId, workflow: '', status: run.status, error_kind: null, error_message: null,
    created_at: toIso(run.createdAt), finished_at: null,
  };
  for (const e of stream) {
    if (e.type === 'run.started') failure.workflow = e.workflow;
    else if (e.type === 'step.finished' && e.status === 'failed' && e.error) {
      failure.error_kind = e.error.kind;
      failure.error_message = e.error.message ?? null;
    } else if (e.type === 'run.finished') {
      failure.finished_at = toIso(parseRfc3339(e.at) ?? null);
      if (e.error) {
        failure.error_kind = e.error.kind;
        failure.error_message = e.error.message ?? null;
      }
    }
  }
  return failure;
}

/** The scalar fields of a run item, in order: the CSV columns of the history export. */
export const RUN_CSV_COLUMNS: readonly (keyof RunItem)[] = [
  'run_id', 'workflow', 'status', 'trigger', 'session', 'session_id', 'network', 'contract', 'relayers', 'tx_hashes',
  'block', 'step_ids', 'error_kind', 'approval_status', 'wait_kind', 'replay_of', 'created_at', 'finished_at', 'duration_ms',
];

/**
 * One CSV line of a run (RFC 4180 quoting; lists joined by a space). A cell that a spreadsheet would run as a
 * formula (starting with = + - @, tab or carriage return) is prefixed with a quote, since run data is untrusted.
 */
export function runCsvLine(run: RunItem): string {
  return RUN_CSV_COLUMNS.map((column) => {
    const value = run[column];
    return csvCell(Array.isArray(value) ? value.join(' ') : value === null ? '' : String(value));
  }).join(',');
}

export function csvCell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export { toRunItem };
