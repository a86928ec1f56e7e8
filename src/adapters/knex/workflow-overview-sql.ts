import { eachLine, fieldOf } from './list-reads';
import { WORKFLOW_STATS_COLUMNS } from './rows';
import type { StatementReaders } from './statement-readers';

type Row = Record<string, unknown>;

/** The workflows overview's reads of every workflow (KnexHistoryRepository.listAllWorkflows), the same SQL on both stores. */
export const ALL_STATS = 'SELECT * FROM workflow_stats';
export const ALL_STATES = 'SELECT * FROM workflow_states';
/**
 * The runs waiting now per workflow, as triggers keep them in the statement that parks or wakes a run: one row per
 * workflow on SQLite (migration 0008), one per workflow and backend on PostgreSQL (0026), hence the sum.
 */
export const ALL_WAITING = 'SELECT workflow, sum(runs) AS n FROM workflow_waiting GROUP BY workflow';
/** ALL_WAITING for the workflows of one JSON array (the one binding), on SQLite. */
export const WAITING_IN_NAMES = 'SELECT workflow, sum(runs) AS n FROM workflow_waiting WHERE workflow IN (SELECT value FROM json_each(?)) GROUP BY workflow';

/** workflow_stats' text columns: a line quotes them as JSON strings (they may hold a tab or a newline). */
const TEXT_STATS: ReadonlySet<string> = new Set(['workflow', 'recent_error_kind']);
const LAST = WORKFLOW_STATS_COLUMNS.length - 1;
if (WORKFLOW_STATS_COLUMNS[LAST] !== 'durations') throw new Error('a stats line ends with its durations');

/**
 * A workflow_stats row as one line on PostgreSQL: its columns tab-separated, text ones as JSON strings, NULL as an
 * empty field, then the row version's `xmin`, and `durations` last, as stored (JSON text holds no raw newline), or
 * empty where the reader already holds that row version's (the two array bindings: workflows and their `xmin`s).
 * `json_agg` of the rows escaped each histogram (about 4 KB of JSON, kept compressed) into a JSON string that
 * JSON.parse then unescaped; a line is a copy on both sides, and an unchanged histogram is neither decompressed nor
 * sent: reading the eight histograms of the 1M bench journal was two thirds of the overview's statement.
 */
const STATS_LINE = `concat(${WORKFLOW_STATS_COLUMNS.slice(0, LAST).map((c) => (TEXT_STATS.has(c) ? `to_json("${c}")::text` : `"${c}"`)).join(', chr(9), ')}, `
  + 'chr(9), xmin::text, chr(9), CASE WHEN EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[]) AS held(workflow, xmin) '
  + 'WHERE held.workflow = workflow_stats.workflow AND held.xmin = workflow_stats.xmin::text) THEN \'\' ELSE durations END)';

/**
 * listAllWorkflows' three reads as one statement on PostgreSQL (one trip instead of three side by side: on a busy
 * host each trip waits for the server's process to be scheduled): the stats as lines, the states and the waiting
 * counts as JSON texts (numbers as JSON numbers: epoch ms and counts, exact below 2^53; booleans as booleans).
 */
const OVERVIEW_SQL = `SELECT (SELECT string_agg(${STATS_LINE}, chr(10)) FROM workflow_stats) AS stats, `
  + `(SELECT coalesce(json_agg(t), '[]'::json) FROM workflow_states t)::text AS states, `
  + `(SELECT coalesce(json_agg(t), '[]'::json) FROM (${ALL_WAITING}) t)::text AS waiting`;

/** Rows of a statement without bindings (see listAllWorkflows). */
export type AllRows = (sql: string, bindings: []) => Promise<Row[]>;

/**
 * The histograms each database's readers hold, by workflow, with the `xmin` of the row version they came with: a
 * row version's `xmin` (the transaction that wrote it) is its own, so the same workflow and `xmin` is the same
 * histogram. At most one entry a workflow (the overview reads at most ONE_ROUND_WORKFLOWS of them this way).
 */
const heldHistograms = new WeakMap<StatementReaders, Map<string, { readonly xmin: string; readonly durations: string }>>();

/** The reads of ALL_STATS, ALL_STATES and ALL_WAITING answered from one OVERVIEW_SQL, read at the first of them. */
export function allWorkflowsOnPostgres(pg: StatementReaders): AllRows {
  let pending: Promise<Record<string, Row[]>> | undefined;
  let held = heldHistograms.get(pg);
  if (!held) heldHistograms.set(pg, (held = new Map()));
  const histograms = held;
  return async (query) => {
    pending ??= (async () => {
      // What this read may leave out, as it stands now: another read may change `histograms` meanwhile.
      const sent = new Map(histograms);
      const [row] = await pg.select(OVERVIEW_SQL, [[...sent.keys()], [...sent.values()].map((h) => h.xmin)]);
      return {
        [ALL_STATS]: statsRowsOfLines(row?.stats, sent, histograms),
        [ALL_STATES]: JSON.parse(String(row?.states ?? '[]')) as Row[],
        [ALL_WAITING]: JSON.parse(String(row?.waiting ?? '[]')) as Row[],
      };
    })();
    const rows = (await pending)[query];
    if (!rows) throw new Error(`not one of the overview's reads: ${query}`);
    return rows;
  };
}

type Held = ReadonlyMap<string, { readonly xmin: string; readonly durations: string }>;

/**
 * The workflow_stats rows of STATS_LINE lines (NULL for no rows), as JSON would have given them: a histogram left
 * out is the one `sent` held for that row version; each one read is held in `keep` for the next read.
 */
export function statsRowsOfLines(text: unknown, sent: Held = new Map(), keep?: Map<string, { xmin: string; durations: string }>): Row[] {
  const rows: Row[] = [];
  if (typeof text !== 'string' || text === '') return rows;
  eachLine(text, LAST + 2, (line, at) => {
    const row: Row = {};
    for (let i = 0; i < LAST; i++) {
      const field = fieldOf(line, at, i);
      const column = WORKFLOW_STATS_COLUMNS[i]!;
      row[column] = field === '' ? null : TEXT_STATS.has(column) ? stringOfJson(field) : Number(field);
    }
    const workflow = String(row.workflow);
    const xmin = fieldOf(line, at, LAST);
    let durations = fieldOf(line, at, LAST + 1);
    if (durations === '') {
      const held = sent.get(workflow);
      // Left out only for a version the read was sent: anything else is a statement that does not match its reader.
      if (held?.xmin !== xmin) throw new Error(`the overview left out the histogram of ${workflow} that it was not sent`);
      durations = held.durations;
    } else if (keep) {
      keep.set(workflow, { xmin, durations });
    }
    row.durations = durations;
    rows.push(row);
  });
  if (keep) {
    const read = new Set(rows.map((r) => r.workflow));
    for (const workflow of keep.keys()) if (!read.has(workflow)) keep.delete(workflow);
  }
  return rows;
}

/** A JSON string as PostgreSQL's to_json writes it: escapes only where it holds a backslash. */
function stringOfJson(quoted: string): string {
  return quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
}
