import type { CursorPosition } from '../../domain/cursor';
import type { JournalEvent } from '../../domain/journal/journal-event';
import type { ApprovalStatus, Run, RunStatus } from '../../domain/run';
import type { SessionKind } from '../../domain/journal/journal-event';

/** Run filters (SPEC, Filters (runs)); every one optional, all combined with AND. Times are epoch ms. */
export interface RunFilter {
  readonly workflow?: string;
  readonly status?: RunStatus;
  readonly trigger?: string;
  readonly network?: string;
  readonly contract?: string;
  /** Matches a run any of whose sends used this relayer. */
  readonly relayer?: string;
  /** Matches a run any of whose sends has this transaction hash. */
  readonly txHash?: string;
  readonly block?: number;
  readonly runId?: string;
  /** Matches a run that started this step (by the workflow definition's step id). */
  readonly stepId?: string;
  readonly errorKind?: string;
  readonly approvalStatus?: ApprovalStatus;
  readonly session?: SessionKind;
  /** The runs of one replay or test session. */
  readonly sessionId?: string;
  /** created_at >= since */
  readonly since?: number;
  /** created_at <= until */
  readonly until?: number;
}

/** A keyset page request: newest first on (created_at, id), strictly after `after` when given. */
export interface PageRequest {
  /** Rows to return, 1 to 500 (the caller asks for one more to learn whether there is a next page). */
  readonly limit: number;
  readonly after?: CursorPosition;
}

/**
 * An item of a page as JSON text (not yet redacted), with its place in the page's order: a page read without its
 * rows becoming objects (the history lists answer it as it is, once redacted).
 */
export interface ItemText {
  readonly position: CursorPosition;
  readonly json: string;
}

/** A run's item as text (ItemText), with its status: what the JSON export keeps of each run besides its place. */
export interface RunItemText extends ItemText {
  readonly status: RunStatus;
}

/** The key of a run in a page, and its status: what the JSON export keeps of each run to read its other sections. */
export interface RunKey {
  readonly runId: string;
  readonly createdAt: number;
  readonly status: RunStatus;
}

/** The step runs of some runs as text (see RunRepository.stepItemsOfRuns), and how many they are. */
export interface StepItemsText {
  readonly count: number;
  readonly texts: string[];
}

/** Reads the run projection and the journal streams of runs. */
export interface RunRepository {
  /** Runs matching the filter, newest first on (created_at, run_id), at most `page.limit`. */
  list(filter: RunFilter, page: PageRequest): Promise<Run[]>;
  /** The runs of `list`, the same page, each as the JSON text of its item (`toRunItem`, CONTRACT section 4). */
  listItems(filter: RunFilter, page: PageRequest): Promise<RunItemText[]>;
  get(runId: string): Promise<Run | undefined>;
  /** Every journal event of the run's stream (its steps, sends, approvals, reorg steps), in journal order. */
  stream(runId: string): Promise<JournalEvent[]>;
  /**
   * The streams of several runs at once (for exports), keyed by run id; runs without events are absent. With
   * `types`, only the events of those types, still in journal order (a run with none of them is absent).
   */
  streams(runIds: readonly string[], types?: readonly JournalEvent['type'][]): Promise<Map<string, JournalEvent[]>>;
  /**
   * The step runs of these runs as the export shows them (`exportSteps` of each run's stream; not yet redacted):
   * each run's as the JSON text of its items joined by commas, in `runIds`' order, a run without step runs left out.
   */
  stepItemsOfRuns(runIds: readonly string[]): Promise<StepItemsText>;
}
export const RunRepository = Symbol('RunRepository');
