import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/**
 * The runs parked now, counted per workflow (the workflows overview's `runs_waiting`), kept by triggers on `runs`:
 * every writer (the engine, an import in another process, retention) keeps it exact, in the statement that changes
 * a run, so the overview reads one row per workflow instead of counting every waiting run. SQLite only; on
 * PostgreSQL the overview counts as before.
 */
export const waitingCounts = {
  async up(db: Knex): Promise<void> {
    if (!dialectOf(db).storedItems) return;
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
    if (!dialectOf(db).storedItems) return;
    for (const t of ['runs_waiting_insert', 'runs_waiting_update', 'runs_waiting_delete']) await db.raw(`DROP TRIGGER IF EXISTS ${t}`);
    await db.raw('DROP TABLE IF EXISTS workflow_waiting');
  },
};
