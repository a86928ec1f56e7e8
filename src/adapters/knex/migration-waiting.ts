import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/**
 * The runs parked now, counted per workflow (the workflows overview's `runs_waiting`), kept by triggers on `runs`:
 * every writer (the engine, an import in another process, retention) keeps it exact, in the statement that changes
 * a run, so the overview reads one row per workflow instead of counting every waiting run. This is SQLite's (one
 * writer at a time: one row per workflow); PostgreSQL's is migration 0026 below.
 */
export const waitingCounts = {
  async up(db: Knex): Promise<void> {
    if (!dialectOf(db).oneWriter) return;
    await db.raw('CREATE TABLE workflow_waiting (workflow VARCHAR(255) PRIMARY KEY, runs INTEGER NOT NULL) WITHOUT ROWID');
    await db.raw(`INSERT INTO workflow_waiting (workflow, runs) SELECT workflow, count(*) FROM runs WHERE status = 'waiting' GROUP BY workflow`);
    const enter = (alias: string): string =>
      `INSERT INTO workflow_waiting (workflow, runs) SELECT ${alias}.workflow, 1 WHERE ${alias}.status = 'waiting' ON CONFLICT (workflow) DO UPDATE SET runs = runs + 1;`;
    const leave = (alias: string): string => `UPDATE workflow_waiting SET runs = runs - 1 WHERE workflow = ${alias}.workflow AND ${alias}.status = 'waiting';`;
    await db.raw(`CREATE TRIGGER runs_waiting_insert AFTER INSERT ON runs WHEN new.status = 'waiting' BEGIN ${enter('new')} END`);
    await db.raw(`CREATE TRIGGER runs_waiting_update AFTER UPDATE OF status, workflow ON runs
      WHEN (old.status = 'waiting' OR new.status = 'waiting') AND (old.status IS NOT new.status OR old.workflow IS NOT new.workflow)
      BEGIN ${leave('old')} ${enter('new')} END`);
    await db.raw(`CREATE TRIGGER runs_waiting_delete AFTER DELETE ON runs WHEN old.status = 'waiting' BEGIN ${leave('old')} END`);
  },
  async down(db: Knex): Promise<void> {
    if (!dialectOf(db).oneWriter) return;
    for (const t of ['runs_waiting_insert', 'runs_waiting_update', 'runs_waiting_delete']) await db.raw(`DROP TRIGGER IF EXISTS ${t}`);
    await db.raw('DROP TABLE IF EXISTS workflow_waiting');
  },
};

/** The slot of the counts a fold gathers (see migration 0026); no backend has process id 0. */
export const FOLDED_SLOT = 0;

/**
 * Migration 0026 (issue #29): the same counts where several processes write at once (PostgreSQL), kept by row
 * triggers in the statement that changes a run, as SQLite's are. One row per workflow would be a hot row: every
 * transaction that parks or wakes a run of it would hold its lock until commit, serializing the engines, and a
 * group commit touching several workflows in another order than its neighbour's would deadlock. So each backend
 * counts into rows of its own, keyed (workflow, slot = pg_backend_pid()): a backend runs one transaction at a time,
 * so no two open transactions ever write the same row and no writer waits for another. A slot may go negative (a
 * run parked by one backend, woken by another); the count is `SUM(runs) GROUP BY workflow`. Rows of backends that
 * have ended are folded into slot 0 (adapters/postgres/pg-waiting-fold.ts), so the rows stay about as many as
 * workflows times live connections.
 *
 * The WHEN clauses keep the function off every other write of a run (a step's move): it runs only when a run
 * enters or leaves 'waiting', or a waiting run changes workflow. The triggers are made before the count is taken:
 * CREATE TRIGGER locks `runs` against writes until this migration commits, so no park or wake falls between the
 * count and the first trigger.
 */
export const waitingSlotsMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).oneWriter) return;
    await db.raw('CREATE TABLE workflow_waiting (workflow VARCHAR(255) NOT NULL, slot INTEGER NOT NULL, runs INTEGER NOT NULL, PRIMARY KEY (workflow, slot))');
    const add = (alias: string, by: number): string => `INSERT INTO workflow_waiting AS w (workflow, slot, runs) VALUES (${alias}.workflow, pg_backend_pid(), ${by})
          ON CONFLICT (workflow, slot) DO UPDATE SET runs = w.runs + (${by});`;
    await db.raw(`CREATE FUNCTION workflow_waiting_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          IF OLD.status = 'waiting' THEN ${add('OLD', -1)} END IF;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          IF NEW.status = 'waiting' THEN ${add('NEW', 1)} END IF;
        END IF;
        RETURN NULL;
      END $$`);
    await db.raw(`CREATE TRIGGER runs_waiting_insert AFTER INSERT ON runs FOR EACH ROW WHEN (NEW.status = 'waiting') EXECUTE FUNCTION workflow_waiting_count()`);
    await db.raw(`CREATE TRIGGER runs_waiting_update AFTER UPDATE OF status, workflow ON runs FOR EACH ROW
      WHEN ((OLD.status = 'waiting' OR NEW.status = 'waiting') AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.workflow IS DISTINCT FROM NEW.workflow))
      EXECUTE FUNCTION workflow_waiting_count()`);
    await db.raw(`CREATE TRIGGER runs_waiting_delete AFTER DELETE ON runs FOR EACH ROW WHEN (OLD.status = 'waiting') EXECUTE FUNCTION workflow_waiting_count()`);
    await db.raw(`INSERT INTO workflow_waiting (workflow, slot, runs) SELECT workflow, ${FOLDED_SLOT}, count(*) FROM runs WHERE status = 'waiting' GROUP BY workflow`);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).oneWriter) return;
    for (const t of ['runs_waiting_insert', 'runs_waiting_update', 'runs_waiting_delete']) await db.raw(`DROP TRIGGER IF EXISTS ${t} ON runs`);
    await db.raw('DROP FUNCTION IF EXISTS workflow_waiting_count()');
    await db.raw('DROP TABLE IF EXISTS workflow_waiting');
  },
};
