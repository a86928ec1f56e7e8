import type { Knex } from 'knex';
import type { RunToEnqueue } from '../../application/ports/engine-store';
import type { LeaseFence } from '../../application/ports/journal-writer';
import type { PinnedDefinition } from '../../domain/engine/pinned-definition';
import { LeaseLostError } from '../../domain/errors';
import { MAX_ROWS, selectIn, type Db } from './bulk';
import { dialectOf, isWriteSession, type Row } from './dialect';

/** EngineStore.wake's statement (bindings: at, at, at, run id), also run by the journal writer inside an append. */
export const WAKE_SQL = 'UPDATE engine_runs SET wake_at = ?, due_at = CASE WHEN due_at IS NULL OR due_at > ? THEN ? ELSE due_at END WHERE run_id = ?';

/**
 * A new run's row of the schedule held by no process, due at `dueAt` (epoch ms): whichever engine claims it first
 * drives it (and journals its start).
 */
export function unheldRunRow(run: RunToEnqueue, dueAt: number): Record<string, unknown> {
  return {
    run_id: run.runId, workflow: run.workflow, due_at: dueAt, owner: null, lease_until: null, start: JSON.stringify(run.start), fence: 0,
    definition_hash: run.definition?.hash ?? null, enqueued_at: run.at,
  };
}

/**
 * Keeps a run's definition by its hash, before the run that names it (so none ever names a missing one);
 * content-addressed, so one left by a run that was not recorded after all is merely kept.
 */
export async function storeDefinition(db: Knex | Knex.Transaction, workflow: string, definition: PinnedDefinition): Promise<void> {
  await db.raw('INSERT INTO engine_definitions (hash, workflow, definition) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING', [
    definition.hash, workflow, JSON.stringify(definition.definition),
  ]);
}

/**
 * Refuses the write unless each run's lease still carries its fence's token (CONTRACT 8.7). The read is inside the
 * write's transaction: SQLite's holds the write lock from BEGIN IMMEDIATE, so no claim can come between; on
 * PostgreSQL FOR SHARE makes a concurrent claim (an UPDATE of the row) wait for this transaction's end. The rows of
 * a group of appends are locked in one statement, in run id order, the order a lease renewal locks them in
 * (KnexEngineStore.renew): two orders would deadlock a group against a renewal of the same runs.
 */
export async function checkFences(db: Db, fences: readonly LeaseFence[]): Promise<void> {
  if (fences.length === 0) return;
  const ids = fencedIds(fences);
  const { forShare } = dialectOf(db);
  const sql = `SELECT run_id, fence FROM engine_runs WHERE run_id IN (${ids.map(() => '?').join(', ')})${forShare ? ` ORDER BY run_id${forShare}` : ''}`;
  const rows = isWriteSession(db) ? await db.select(sql, ids) : rowsOf(await db.raw(sql, ids));
  verifyFences(fences, new Map(rows.map((r) => [String(r.run_id), Number(r.fence)])));
}

/**
 * `SELECT columns FROM from WHERE column IN ids` and checkFences in one statement where a fence check locks its rows
 * (PostgreSQL: a round trip fewer per group of appends): the fences' rows locked FOR SHARE in run id order, as
 * checkFences locks them, in a CTE whose tokens come back beside the rows. The rows are read in the statement's
 * snapshot, which may be older than a lock it waited for: what another writer of those runs committed meanwhile
 * comes with an event of their streams, whose key the append then collides on (and is done again). Elsewhere (and
 * for more ids than one statement takes), checkFences and then the read.
 */
export async function selectFenced(db: Db, fences: readonly LeaseFence[], from: string, column: string, ids: readonly string[], columns: string): Promise<Row[]> {
  const { forShare } = dialectOf(db);
  if (fences.length === 0 || !forShare || isWriteSession(db) || ids.length > MAX_ROWS) {
    await checkFences(db, fences);
    return selectIn(db, from, column, ids, columns);
  }
  const fenced = fencedIds(fences);
  const read = ids.length ? ` LEFT JOIN (SELECT ${columns} FROM ${from} WHERE ${column} IN (${ids.map(() => '?').join(', ')})) AS r ON true` : '';
  const rows = rowsOf(await db.raw(
    `WITH fenced AS MATERIALIZED (SELECT run_id, fence FROM engine_runs WHERE run_id IN (${fenced.map(() => '?').join(', ')}) ORDER BY run_id${forShare})
     SELECT held.tokens AS held_tokens${read ? ', r.*' : ''} FROM (SELECT coalesce(json_agg(json_build_array(run_id, fence)), '[]')::text AS tokens FROM fenced) AS held${read}`,
    [...fenced, ...ids],
  ));
  verifyFences(fences, new Map((JSON.parse(String(rows[0]!.held_tokens)) as [string, number | string][]).map(([id, fence]) => [id, Number(fence)])));
  return rows.filter((r) => r.run_id !== null && r.run_id !== undefined);
}

function fencedIds(fences: readonly LeaseFence[]): string[] {
  return [...new Set(fences.map((f) => f.runId))].sort();
}

function verifyFences(fences: readonly LeaseFence[], held: ReadonlyMap<string, number>): void {
  for (const fence of fences) {
    const token = held.get(fence.runId);
    if (token !== fence.token) throw new LeaseLostError(fence.runId, fence.token, token === undefined);
  }
}

/** EngineStore.wake inside the append's transaction (held back with its writes on a SQLite write session). */
export async function wake(db: Db, { runId, at }: { runId: string; at: number }): Promise<void> {
  if (isWriteSession(db)) db.write(WAKE_SQL, [at, at, at, runId]);
  else await db.raw(WAKE_SQL, [at, at, at, runId]);
}

/** EngineStore.remove of these runs inside the append's transaction (one statement for a group of appends). */
export async function unschedule(db: Db, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  const sql = `DELETE FROM engine_runs WHERE run_id IN (${runIds.map(() => '?').join(', ')})`;
  if (isWriteSession(db)) db.write(sql, runIds);
  else await db.raw(sql, [...runIds]);
}

function rowsOf(result: unknown): Record<string, unknown>[] {
  return (Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows);
}
