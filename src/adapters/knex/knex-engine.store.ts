import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import { FIRST_FENCE, type ClaimedRun, type EngineStore, type RunToEnqueue } from '../../application/ports/engine-store';
import type { WorkflowDefinition } from '../../domain/engine/workflow';
import type { JournalEvent } from '../../domain/journal/journal-event';
import { databaseNow, dialectOf, leaseSql } from './dialect';
import { WAKE_SQL } from './engine-runs-sql';
import { Database } from './knex-journal.writer';

interface ClaimRow {
  run_id: string;
  workflow: string;
  start: string;
  expired: number | string;
  crash_step: string | null;
  crash_count: number | string;
  fence: number | string;
  definition_hash: string | null;
  /** The run's events as one JSON array text, or null (see claimDue). */
  stream?: string | null;
}

/** Another enqueue recorded one of the delivery keys first. */
class DeliveryRace extends Error {}

/** The delivery was seen before: the transaction rolls back (keys it did insert included) and this run is the answer. */
class SeenDelivery extends Error {
  constructor(readonly runId: string) {
    super('delivery seen');
  }
}

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

/**
 * A claim that also reads each claimed run's stream, where it is safe to (ClaimedRun.stream): the claim's UPDATE as a
 * data-modifying CTE, the schedule's rows as they were before it (`was`: the statement's snapshot, which also reads
 * the events). A row the claim found held by none, whose fence the claim raised by one, was released before the
 * snapshot, by a holder whose writes were all done (a park or stop journals, then releases) and by nobody since
 * (any claim raises the fence). A lease that ran out may still see its holder's last write land after the snapshot;
 * and a row another process claimed (and released) between the snapshot and this claim's lock has writes the
 * snapshot misses: neither gets a stream, and its driver reads it.
 */
function withStreams(claim: string): string {
  return `WITH claimed AS (${claim})
    SELECT claimed.*, CASE WHEN was.owner IS NULL AND claimed.fence = was.fence + 1 THEN
      (SELECT coalesce('[' || string_agg(body, ',' ORDER BY seq) || ']', '[]') FROM events WHERE events.stream = claimed.run_id) END AS stream
    FROM claimed JOIN engine_runs AS was ON was.run_id = claimed.run_id`;
}

/**
 * The engine's schedule on knex. Each method is one statement or one short transaction, so several engine
 * processes can share the database: a claim is a single UPDATE … RETURNING over the due rows (on PostgreSQL the
 * candidate rows are locked with FOR UPDATE SKIP LOCKED, so concurrent claimers take different runs; on SQLite
 * the statement holds the write lock). Lease times are the database's clock on PostgreSQL (see LeaseClock): a
 * lease runs out when the server says so, whatever the clocks of the processes sharing it.
 */
@injectable()
export class KnexEngineStore implements EngineStore {
  private readonly skipLocked: string;
  private readonly lockedInOrder: string;
  /** SQL of the database's "now" for lease times, or undefined: the caller's times (see LeaseClock). */
  private readonly dbNow: string | undefined;
  /** Definitions this process knows to be stored: a run of one costs no second write of it. */
  private readonly storedDefinitions = new Set<string>();
  /** A claim reads its runs' streams in the same statement (see withStreams). */
  private readonly claimsStreams: boolean;

  constructor(@inject(Database) private readonly db: Knex) {
    const dialect = dialectOf(db);
    this.skipLocked = dialect.skipLocked;
    this.lockedInOrder = dialect.forUpdate ? ` ORDER BY run_id${dialect.forUpdate}` : '';
    this.dbNow = databaseNow(db);
    this.claimsStreams = dialect.modifyingCte;
  }

  async enqueue(run: RunToEnqueue, owner: string, leaseUntil: number): Promise<{ runId: string; created: boolean }> {
    // Before the run that names it (so none ever names a missing one); content-addressed, so one left by a run that
    // was not recorded after all is merely kept.
    if (run.definition && !this.storedDefinitions.has(run.definition.hash)) {
      await this.db.raw('INSERT INTO engine_definitions (hash, workflow, definition) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING', [
        run.definition.hash, run.workflow, JSON.stringify(run.definition.definition),
      ]);
      this.storedDefinitions.add(run.definition.hash);
    }
    if (run.cronTick) return this.enqueueCronTick(run, run.cronTick, owner, leaseUntil);
    if (dialectOf(this.db).oneWriter) return this.enqueueOneStatement(run, owner, leaseUntil);
    // A concurrent enqueue of the same delivery may insert its key between our check and our insert: then the
    // transaction is rolled back and the check, run again, finds that run.
    for (let tries = 0; ; tries++) {
      try {
        return await this.db.transaction((trx) => this.enqueueIn(trx, run, owner, leaseUntil));
      } catch (err) {
        if (err instanceof SeenDelivery) return { runId: err.runId, created: false };
        if (!(err instanceof DeliveryRace) || tries >= 2) throw err;
      }
    }
  }

  /**
   * A cron tick's run and the move of the workflow's next tick, in one transaction (CONTRACT 8.7: a tick is never
   * lost nor fired twice). A tick whose run was recorded already (its delivery key seen) still moves on.
   */
  private async enqueueCronTick(run: RunToEnqueue, tick: { expected: number; next: number }, owner: string, leaseUntil: number): Promise<{ runId: string; created: boolean }> {
    return this.db.transaction(async (trx) => {
      const moved = await trx('engine_cron').where({ workflow: run.workflow, next_at: tick.expected }).update({ next_at: tick.next });
      if (Number(moved) !== 1) return { runId: '', created: false };
      try {
        // A cron tick's one delivery key: a SeenDelivery comes before any write of enqueueIn, so the move stands alone.
        return await this.enqueueIn(trx, run, owner, leaseUntil);
      } catch (err) {
        if (err instanceof SeenDelivery) return { runId: err.runId, created: false };
        throw err;
      }
    });
  }

  /** SQLite: the trigger `engine_runs_deliveries` records the keys in the same statement (see the migration). */
  private async enqueueOneStatement(run: RunToEnqueue, owner: string, leaseUntil: number): Promise<{ runId: string; created: boolean }> {
    const keys = run.dedupeKeys ?? [];
    try {
      await this.db('engine_runs').insert({
        ...this.runRow(run, owner, leaseUntil), dedupe_keys: keys.length ? JSON.stringify(keys) : null, enqueued_at: run.at,
      });
      return { runId: run.runId, created: true };
    } catch (err) {
      // A run id is new: a constraint failure here is one of its delivery keys, recorded before.
      const code = (err as { code?: unknown; driverCode?: unknown }).driverCode ?? (err as { code?: unknown }).code;
      if (keys.length === 0 || code !== 'SQLITE_CONSTRAINT') throw err;
      const seen = await this.db('engine_deliveries').whereIn('delivery_key', keys).first('run_id');
      if (!seen) throw err;
      return { runId: String(seen.run_id), created: false };
    }
  }

  private runRow(run: RunToEnqueue, owner: string, leaseUntil: number): Record<string, unknown> {
    const held = owner !== '';
    return {
      run_id: run.runId, workflow: run.workflow, due_at: held ? leaseUntil : 0, owner: held ? owner : null,
      lease_until: held ? this.leaseEnd(run.at, leaseUntil) : null, start: JSON.stringify(run.start), fence: held ? FIRST_FENCE : 0,
      definition_hash: run.definition?.hash ?? null,
    };
  }

  private async enqueueIn(trx: Knex.Transaction, run: RunToEnqueue, owner: string, leaseUntil: number): Promise<{ runId: string; created: boolean }> {
    const keys = run.dedupeKeys ?? [];
    const now = run.at;
    if (keys.length > 0) {
      // Insert first (a new delivery is the common case): a key that was seen inserts nothing, and only then is
      // the earlier run looked up.
      const inserted = rowsOf<{ delivery_key: string }>(await trx.raw(
        `INSERT INTO engine_deliveries (delivery_key, run_id, at) VALUES ${keys.map(() => '(?, ?, ?)').join(', ')}
         ON CONFLICT (delivery_key) DO NOTHING RETURNING delivery_key`,
        keys.flatMap((key) => [key, run.runId, now]),
      ));
      if (inserted.length !== keys.length) {
        const seen = await trx('engine_deliveries').whereIn('delivery_key', keys).whereNot('run_id', run.runId).first('run_id');
        if (seen) throw new SeenDelivery(String(seen.run_id));
        throw new DeliveryRace();
      }
    }
    await trx('engine_runs').insert({ ...this.runRow(run, owner, leaseUntil), enqueued_at: now });
    return { runId: run.runId, created: true };
  }

  /** A lease's end as stored: `leaseUntil`, or as long from the database's now (see LeaseClock). */
  private leaseEnd(now: number, leaseUntil: number): number | Knex.Raw {
    return this.dbNow ? this.db.raw(`${this.dbNow} + ?`, [leaseUntil - now]) : leaseUntil;
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<ClaimedRun[]> {
    if (limit <= 0) return [];
    // Due times are the engine's schedule (the caller's clock); lease times may be the database's.
    const lease = leaseSql(this.dbNow, now, leaseUntil);
    const claim = `UPDATE engine_runs SET owner = ?, lease_until = ${lease.until}, wake_at = NULL, fence = fence + 1,
         expired = CASE WHEN owner IS NULL THEN 0 ELSE 1 END
       WHERE run_id IN (
         SELECT run_id FROM engine_runs WHERE due_at <= ? AND (owner IS NULL OR lease_until < ${lease.now})
         ORDER BY due_at LIMIT ?${this.skipLocked})
       RETURNING run_id, workflow, start, expired, crash_step, crash_count, fence, definition_hash`;
    const bindings = [owner, ...lease.untilArgs, now, ...lease.nowArgs, limit];
    const rows = rowsOf<ClaimRow>(await this.db.raw(this.claimsStreams ? withStreams(claim) : claim, bindings));
    return rows.map((r) => ({
      runId: r.run_id, workflow: r.workflow, start: JSON.parse(r.start) as JournalEvent[], expired: Number(r.expired) === 1,
      crashStepRunId: r.crash_step, crashCount: Number(r.crash_count), fence: Number(r.fence),
      definitionHash: r.definition_hash ?? null,
      ...(typeof r.stream === 'string' ? { stream: JSON.parse(r.stream) as JournalEvent[] } : {}),
    }));
  }

  async renew(owner: string, runIds: readonly string[], now: number, leaseUntil: number): Promise<string[]> {
    if (runIds.length === 0) return [];
    const held: string[] = [];
    const lease = leaseSql(this.dbNow, now, leaseUntil);
    const ids = [...runIds].sort();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      // The rows locked in run id order first, as a journal write's fence check locks them (checkFences): in
      // whatever order the UPDATE met them, a renewal deadlocked against a group of appends of the same runs.
      const rows = rowsOf<{ run_id: string }>(await this.db.raw(
        `UPDATE engine_runs SET lease_until = ${lease.until} WHERE run_id IN (
           SELECT run_id FROM engine_runs WHERE owner = ? AND run_id IN (${part.map(() => '?').join(',')})${this.lockedInOrder})
         RETURNING run_id`,
        [...lease.untilArgs, owner, ...part],
      ));
      held.push(...rows.map((r) => r.run_id));
    }
    return held;
  }

  async release(owner: string, runId: string, dueAt: number | null): Promise<void> {
    // A wake that came while the run was held (an approval decided before the park was released) is kept.
    if (dueAt === null) {
      await this.db.raw('UPDATE engine_runs SET owner = NULL, lease_until = NULL, due_at = wake_at WHERE run_id = ? AND owner = ?', [runId, owner]);
      return;
    }
    await this.db.raw(
      `UPDATE engine_runs SET owner = NULL, lease_until = NULL,
         due_at = CASE WHEN wake_at IS NOT NULL AND wake_at < ? THEN wake_at ELSE ? END
       WHERE run_id = ? AND owner = ?`,
      [dueAt, dueAt, runId, owner],
    );
  }

  async remove(runId: string): Promise<void> {
    await this.db('engine_runs').where({ run_id: runId }).delete();
  }

  async wake(runId: string, at: number): Promise<void> {
    await this.db.raw(WAKE_SQL, [at, at, at, runId]);
  }

  async noteCrash(runId: string, stepRunId: string | null, count: number): Promise<void> {
    await this.db('engine_runs').where({ run_id: runId }).update({ crash_step: stepRunId, crash_count: count });
  }

  async pinnedDefinition(hash: string): Promise<WorkflowDefinition | undefined> {
    const row = await this.db('engine_definitions').where({ hash }).first('definition');
    return row ? (JSON.parse(String(row.definition)) as WorkflowDefinition) : undefined;
  }

  async fenceOf(runId: string): Promise<number | undefined> {
    const row = await this.db('engine_runs').where({ run_id: runId }).first('fence');
    return row ? Number(row.fence) : undefined;
  }

  async nextLeaseEnd(owner: string, now: number): Promise<number | undefined> {
    const rows = rowsOf<{ left: number | string | null }>(await this.db.raw(
      `SELECT MIN(lease_until) - ${this.dbNow ?? '?'} AS "left" FROM engine_runs WHERE owner IS NOT NULL AND owner <> ?`, this.dbNow ? [owner] : [now, owner],
    ));
    const left = rows[0]?.left;
    return left === null || left === undefined ? undefined : now + Number(left);
  }

  async heldCounts(now: number): Promise<Map<string, number>> {
    const rows = rowsOf<{ workflow: string; n: number | string }>(await this.db.raw(
      `SELECT workflow, COUNT(*) AS n FROM engine_runs WHERE owner IS NOT NULL AND lease_until >= ${this.dbNow ?? '?'} GROUP BY workflow`, this.dbNow ? [] : [now],
    ));
    return new Map(rows.map((r) => [r.workflow, Number(r.n)]));
  }

  async deliveryRun(dedupeKeys: readonly string[]): Promise<string | undefined> {
    if (dedupeKeys.length === 0) return undefined;
    const row = await this.db('engine_deliveries').whereIn('delivery_key', [...dedupeKeys]).first('run_id');
    return row ? String(row.run_id) : undefined;
  }

  async forgetDeliveries(before: number): Promise<number> {
    return Number(await this.db('engine_deliveries').where('at', '<', before).delete());
  }

  async cronNext(workflow: string): Promise<number | undefined> {
    const row = await this.db('engine_cron').where({ workflow }).first('next_at');
    return row ? Number(row.next_at) : undefined;
  }

  async advanceCron(workflow: string, expected: number | undefined, next: number): Promise<boolean> {
    if (expected === undefined) {
      const rows = rowsOf<{ workflow: string }>(await this.db.raw(
        'INSERT INTO engine_cron (workflow, next_at) VALUES (?, ?) ON CONFLICT (workflow) DO NOTHING RETURNING workflow',
        [workflow, next],
      ));
      return rows.length === 1;
    }
    const changed = await this.db('engine_cron').where({ workflow, next_at: expected }).update({ next_at: next });
    return Number(changed) === 1;
  }
}
