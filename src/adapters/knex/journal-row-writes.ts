import type { Run } from '../../domain/run';
import type { ReplaySession } from '../../domain/session';
import type { ChangeSet } from '../../domain/journal/working-set';
import { execute, insertRows, type Db } from './bulk';
import { dialectOf } from './dialect';
import { RUN_COLUMNS, runToRow, SESSION_COLUMNS, sessionToRow } from './rows';

/** How the journal writer writes back the rows of runs and sessions a batch changed. */

/** The sessions whose `session.started` this change holds: their rows take its description. */
export function startedSessions(ch: ChangeSet): Set<string> {
  const started = new Set<string>();
  for (const e of ch.events) if (e.type === 'session.started') started.add(e.stream.slice('session:'.length));
  return started;
}

/**
 * A session's run count is an SQL increment by what this write counted (`stored`: the count the batch started from),
 * so that two writers starting runs of one session (each in its own run's stream) cannot lose each other's. Its
 * description is written by its `session.started` only; an end, once written, stays.
 */
export async function writeSessions(db: Db, sessions: readonly ReplaySession[], stored: ReadonlyMap<string, number>, started: ReadonlySet<string>): Promise<void> {
  const added = (s: ReplaySession): unknown[] => sessionToRow({ ...s, runCount: s.runCount - (stored.get(s.sessionId) ?? 0) });
  const count = 'run_count = sessions.run_count + excluded.run_count, finished_at = COALESCE(excluded.finished_at, sessions.finished_at)';
  const describe = SESSION_COLUMNS.filter((c) => !['session_id', 'run_count', 'finished_at'].includes(c)).map((c) => `"${c}" = excluded."${c}"`).join(', ');
  await insertRows(db, 'sessions', SESSION_COLUMNS, sessions.filter((s) => started.has(s.sessionId)).map(added), { conflictKey: ['session_id'], conflictSet: `${describe}, ${count}` });
  await insertRows(db, 'sessions', SESSION_COLUMNS, sessions.filter((s) => !started.has(s.sessionId)).map(added), { conflictKey: ['session_id'], conflictSet: count });
}

/**
 * Runs new to storage are inserted; a stored run gets an UPDATE of the columns that changed only. A run's row has
 * an index per filter; SQLite updates the indexes of the columns an UPDATE sets, so setting every column (an
 * upsert) rewrites thirteen index entries where a step's move changes none of them. On PostgreSQL, where each
 * statement is a round trip, the runs whose changed columns are the same (a group commit's step moves) share one
 * UPDATE over their rows as one JSON parameter, typed by the table's own row type (`json_populate_recordset`).
 */
export async function writeRuns(db: Db, runs: readonly Run[], stored: ReadonlyMap<string, unknown[]>): Promise<void> {
  const fresh: unknown[][] = [];
  const byShape = new Map<string, { changed: number[]; rows: unknown[][] }>();
  for (const run of runs) {
    const row = runToRow(run);
    const before = stored.get(run.runId);
    if (!before) {
      fresh.push(row);
      continue;
    }
    const changed = RUN_COLUMNS.flatMap((column, i) => (row[i] === before[i] ? [] : [i]));
    if (!changed.length) continue;
    const shape = changed.join(',');
    const same = byShape.get(shape) ?? byShape.set(shape, { changed, rows: [] }).get(shape)!;
    same.rows.push(row);
  }
  const { bulkUpdate } = dialectOf(db);
  for (const { changed, rows } of byShape.values()) {
    if (!bulkUpdate || rows.length === 1) {
      for (const row of rows) {
        await execute(db, `UPDATE runs SET ${changed.map((i) => `"${RUN_COLUMNS[i]}" = ?`).join(', ')} WHERE run_id = ?`, [...changed.map((i) => row[i]), row[0]]);
      }
      continue;
    }
    const records = rows.map((row) => Object.fromEntries([[RUN_COLUMNS[0], row[0]], ...changed.map((i) => [RUN_COLUMNS[i], row[i]])]));
    await execute(db, bulkUpdate('runs', changed.map((i) => RUN_COLUMNS[i]!), RUN_COLUMNS[0]), [JSON.stringify(records)]);
  }
  await insertRows(db, 'runs', RUN_COLUMNS, fresh, { conflictKey: ['run_id'] });
}
