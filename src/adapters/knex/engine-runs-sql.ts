import type { Knex } from 'knex';
import type { RunToEnqueue } from '../../application/ports/engine-store';
import type { LeaseFence } from '../../application/ports/journal-writer';
import type { PinnedDefinition } from '../../domain/engine/pinned-definition';
import { LeaseLostError } from '../../domain/errors';
import type { Db } from './bulk';
import { dialectOf, isWriteSession } from './dialect';

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
 * Refuses the write unless the run's lease still carries `fence`'s token (CONTRACT 8.7). The read is inside the
 * write's transaction: SQLite's holds the write lock from BEGIN IMMEDIATE, so no claim can come between; on
 * PostgreSQL FOR SHARE makes a concurrent claim (an UPDATE of the row) wait for this transaction's end.
 */
export async function checkFence(db: Db, fence: LeaseFence): Promise<void> {
  const sql = `SELECT fence FROM engine_runs WHERE run_id = ?${dialectOf(db).forShare}`;
  const rows = isWriteSession(db) ? await db.select(sql, [fence.runId]) : rowsOf(await db.raw(sql, [fence.runId]));
  const held = rows[0] as { fence?: unknown } | undefined;
  if (held === undefined || Number(held.fence) !== fence.token) throw new LeaseLostError(fence.runId, fence.token, held === undefined);
}

/** EngineStore.wake inside the append's transaction (held back with its writes on a SQLite write session). */
export async function wake(db: Db, { runId, at }: { runId: string; at: number }): Promise<void> {
  if (isWriteSession(db)) db.write(WAKE_SQL, [at, at, at, runId]);
  else await db.raw(WAKE_SQL, [at, at, at, runId]);
}

function rowsOf(result: unknown): Record<string, unknown>[] {
  return (Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows);
}
