import type { Knex } from 'knex';
import type { JournalEvent } from '../../domain/journal/journal-event';
import type { StoredEvent } from '../../domain/journal/working-set';
import type { StepItemsText } from '../../application/ports/run-repository';
import { foldExportSteps, STEP_EVENT_TYPES, type ExportStep, type StepFoldState } from '../../application/history/timeline';
import { chunks, insertRows, selectIn, type Db } from './bulk';
import { readersOf } from './list-reads';

/**
 * The export's step runs, kept by the journal's writer: per run, its step runs as the export's `steps` section shows
 * them (`exportSteps` of its stream), rendered as JSON text, with what a fold of its later events picks up from
 * (`StepFoldState`). The JSON export reads this text instead of reading and folding every run's step events again:
 * that was about half of its CPU. A run without step runs has no row.
 */
export const STEP_RUNS_TABLE = 'run_steps';
const COLUMNS = ['run_id', 'step_count', 'items', 'last_step', 'open_wait'] as const;

/** The fold state of a run's step runs, as stored. */
export type StepRuns = StepFoldState<ExportStep>;

const STEP_TYPES = new Set<string>(STEP_EVENT_TYPES);

/** Runs whose rows one statement of `stepItemsOfRuns` reads (a few hundred KB of text), asked for side by side. */
const READ_CHUNK = 100;

export const stepRunsMigration = {
  async up(db: Knex): Promise<void> {
    await db.schema.createTable(STEP_RUNS_TABLE, (t) => {
      t.string('run_id', 128).primary();
      t.integer('step_count').notNullable();
      t.text('items').notNullable();
      t.string('last_step', 128);
      t.string('open_wait', 128);
    });
    await backfillStepRuns(db);
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists(STEP_RUNS_TABLE);
  },
};

/** `runs` with each run's step runs beside it, to read both in one statement (the journal's writer loads them so). */
export const RUNS_WITH_STEP_RUNS = `runs LEFT JOIN ${STEP_RUNS_TABLE} AS step_runs ON step_runs.run_id = runs.run_id`;
/** The columns of RUNS_WITH_STEP_RUNS that `stepRunsOfRow` reads. */
export const STEP_RUNS_COLUMNS = 'step_runs.items AS step_items, step_runs.last_step AS step_last, step_runs.open_wait AS step_open';

/** A run's stored step runs from a row holding STEP_RUNS_COLUMNS; undefined when it has none. */
export function stepRunsOfRow(row: Record<string, unknown>): StepRuns | undefined {
  if (typeof row.step_items !== 'string') return undefined;
  return {
    steps: JSON.parse(`[${row.step_items}]`) as ExportStep[],
    last: (row.step_last as string | null) ?? null,
    openWait: (row.step_open as string | null) ?? null,
  };
}

/**
 * Folds the step events of `events` (stored events, in journal order) into `stepRuns` (the runs' states as stored,
 * changed in place) and writes the rows of the runs they changed. Events of other streams (sessions, workflows) and
 * types are passed over.
 */
export async function writeStepRuns(db: Db, events: readonly StoredEvent[], stepRuns: Map<string, StepRuns>): Promise<void> {
  const byRun = new Map<string, JournalEvent[]>();
  for (const e of events) {
    if (!STEP_TYPES.has(e.type)) continue;
    let list = byRun.get(e.stream);
    if (!list) byRun.set(e.stream, (list = []));
    list.push(e.event);
  }
  const rows: unknown[][] = [];
  for (const [runId, list] of byRun) {
    const state = foldExportSteps(runId, stepRuns.get(runId), list);
    if (!state.steps.length) continue;
    stepRuns.set(runId, state);
    rows.push(toRow(runId, state));
  }
  await insertRows(db, STEP_RUNS_TABLE, COLUMNS, rows, { conflictKey: ['run_id'] });
}

function toRow(runId: string, state: StepRuns): unknown[] {
  return [runId, state.steps.length, JSON.stringify(state.steps).slice(1, -1), state.last, state.openWait];
}

/**
 * The step runs of these runs as text (RunRepository.stepItemsOfRuns). On a SQLite file, read on the reader
 * connections, a chunk of runs per statement, all asked for at once.
 */
export async function stepItemsOfRuns(db: Knex, runIds: readonly string[]): Promise<StepItemsText> {
  const readers = readersOf(db);
  const byRun = new Map<string, { step_count: number; items: string }>();
  const read = async (ids: readonly string[]): Promise<Record<string, unknown>[]> => {
    if (!readers) return selectIn(db, STEP_RUNS_TABLE, 'run_id', ids, 'run_id, step_count, items');
    return readers.select(`SELECT run_id, step_count, items FROM ${STEP_RUNS_TABLE} WHERE run_id IN (${ids.map(() => '?').join(',')})`, ids);
  };
  for (const rows of await Promise.all(chunks(runIds, READ_CHUNK).map(read))) {
    for (const row of rows) byRun.set(row.run_id as string, { step_count: Number(row.step_count), items: row.items as string });
  }
  let count = 0;
  const texts: string[] = [];
  for (const id of runIds) {
    const row = byRun.get(id);
    if (!row) continue;
    count += row.step_count;
    texts.push(row.items);
  }
  return { count, texts };
}

/** Runs whose step events one statement of the backfill reads. */
const BACKFILL_RUNS = 500;

/**
 * Fills the table from the journal as it stands (the migration that adds it, on a journal written before): each
 * run's step events folded, a page of runs at a time.
 */
export async function backfillStepRuns(db: Knex): Promise<void> {
  const types = [...STEP_EVENT_TYPES];
  let after: string | undefined;
  for (;;) {
    const page = db('runs').select('run_id').orderBy('run_id').limit(BACKFILL_RUNS);
    if (after !== undefined) page.where('run_id', '>', after);
    const ids = ((await page) as { run_id: string }[]).map((r) => r.run_id);
    if (!ids.length) return;
    after = ids[ids.length - 1];
    const rows = (await db('events').select('stream', 'body').whereIn('stream', ids).whereIn('type', types).orderBy([{ column: 'stream' }, { column: 'seq' }])) as { stream: string; body: string }[];
    const byRun = new Map<string, JournalEvent[]>();
    for (const row of rows) {
      let list = byRun.get(row.stream);
      if (!list) byRun.set(row.stream, (list = []));
      list.push(JSON.parse(row.body) as JournalEvent);
    }
    const out: unknown[][] = [];
    for (const [runId, events] of byRun) {
      const state = foldExportSteps(runId, undefined, events);
      if (state.steps.length) out.push(toRow(runId, state));
    }
    await insertRows(db, STEP_RUNS_TABLE, COLUMNS, out);
  }
}
