import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/**
 * The side tables whose rows keep their run's page line on PostgreSQL (migration 0029), each with the column of
 * `runs` that lists the run's values (a JSON array) and the value column of the side table.
 */
export const LINED_SIDE_TABLES = [
  { table: 'run_relayers', column: 'relayer', runsColumn: 'relayers' },
  { table: 'run_step_ids', column: 'step_id', runsColumn: 'step_ids' },
] as const;

/** The values a run lists in `runs` column `column` of row `r` (a JSON array), as an array. */
const valuesOf = (r: string, column: string): string => `ARRAY(SELECT json_array_elements_text(${r}.${column}::json))`;

/**
 * The triggers. On `runs`, row triggers whose WHEN clause (checked without calling the function) lets through only
 * a run inserted finished, or one whose line changes while finished or as it finishes or opens again: the step
 * moves of runs going on cost nothing. Each writes the run's side rows by their full key. On each side table, a
 * statement trigger over the rows inserted, which looks their runs up (most are for runs still going). The
 * functions run without sequential scans: PL/pgSQL keeps the plan it made first, and one made while a table was
 * small scanned it whole for every run later.
 */
function triggerSql(): string[] {
  // A run's lists only grow (a relayer or step id, once in, stays), so its new row names all its side rows.
  const writeRun = (line: string): string => LINED_SIDE_TABLES.map((s) =>
    `IF NEW.${s.runsColumn} <> '[]' THEN
        UPDATE ${s.table} SET line = ${line} WHERE ${s.column} = ANY (${valuesOf('NEW', s.runsColumn)})
          AND created_at = NEW.created_at AND run_id = NEW.run_id AND line IS DISTINCT FROM ${line};
      END IF;`).join('\n');
  return [
    `CREATE FUNCTION chainflow_side_lines_of_new_run() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
      BEGIN ${writeRun('NEW.line')} RETURN NULL; END $$`,
    `CREATE FUNCTION chainflow_side_lines_of_changed_run() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
      BEGIN ${writeRun('CASE WHEN NEW.finished_at IS NOT NULL THEN NEW.line END')} RETURN NULL; END $$`,
    `CREATE TRIGGER runs_side_lines_insert AFTER INSERT ON runs FOR EACH ROW WHEN (NEW.finished_at IS NOT NULL)
      EXECUTE FUNCTION chainflow_side_lines_of_new_run()`,
    `CREATE TRIGGER runs_side_lines_update AFTER UPDATE ON runs FOR EACH ROW
      WHEN ((NEW.finished_at IS NOT NULL OR OLD.finished_at IS NOT NULL) AND NEW.line IS DISTINCT FROM OLD.line)
      EXECUTE FUNCTION chainflow_side_lines_of_changed_run()`,
    ...LINED_SIDE_TABLES.flatMap((s) => [
      // The run looked up by key for each row (OFFSET 0 keeps it a lookup): most rows come for runs still going.
      `CREATE FUNCTION chainflow_lines_of_new_${s.table}() RETURNS trigger LANGUAGE plpgsql SET enable_seqscan = off AS $$
        DECLARE x record;
        BEGIN
          FOR x IN SELECT a.${s.column} AS v, a.created_at, a.run_id, f.line FROM added a
              CROSS JOIN LATERAL (SELECT r.line FROM runs r WHERE r.run_id = a.run_id AND r.finished_at IS NOT NULL OFFSET 0) f LOOP
            UPDATE ${s.table} SET line = x.line WHERE ${s.column} = x.v AND created_at = x.created_at AND run_id = x.run_id;
          END LOOP;
          RETURN NULL;
        END $$`,
      `CREATE TRIGGER ${s.table}_lines AFTER INSERT ON ${s.table} REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION chainflow_lines_of_new_${s.table}()`,
    ]),
  ];
}

/**
 * Migration 0029, on PostgreSQL (issue #29): each row of `run_relayers` and `run_step_ids` keeps its run's page line
 * (`runs.line`, migration 0027) once the run has finished. A page of one relayer or step id read its 51 runs' lines
 * by key from `runs`, a B-tree descent and a heap page each, which made those pages the slowest of the lists
 * (docs/benchmarks.md); now it reads them with its side rows and looks up only the runs still going
 * (KnexRunRepository's KEPT_OR_LOOKED_UP_LINE). It costs the lines' bytes again (about 1.4 GB at 1M runs) and, when a run
 * finishes or a finished run changes, one more write of each of its side rows.
 *
 * Kept by triggers, so every writer keeps it (the engine's group commits, an import, `storage copy`): a
 * run inserted finished or whose line changes while finished writes its side rows, and a side row inserted for a
 * finished run takes its line. A statement's AFTER triggers see all its rows, those of the other parts of the
 * engine's combined statement included (pg-write-batch.ts), so either trigger fills what the other could not see.
 * A run still going has no line in its side rows: most runs' lines change at every step, and only a finished run's
 * settle. The tables are rebuilt with the lines in the rows' time order, the order the engine writes them in.
 * Nothing on SQLite: its page reads the runs' lines in-process (a join), where a lookup costs no round trip.
 */
export const sideLinesMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).oneWriter) return;
    for (const s of LINED_SIDE_TABLES) {
      await db.raw(`ALTER TABLE ${s.table} RENAME TO ${s.table}_unlined`);
      await db.raw(`ALTER TABLE ${s.table}_unlined RENAME CONSTRAINT ${s.table}_pkey TO ${s.table}_unlined_pkey`);
      await db.raw(`CREATE TABLE ${s.table} (${s.column} VARCHAR(255) NOT NULL, created_at BIGINT NOT NULL, run_id VARCHAR(128) NOT NULL, line TEXT)`);
      await db.raw(`INSERT INTO ${s.table} (${s.column}, created_at, run_id, line)
        SELECT x.${s.column}, x.created_at, x.run_id, CASE WHEN r.finished_at IS NOT NULL THEN r.line END
        FROM ${s.table}_unlined x LEFT JOIN runs r ON r.run_id = x.run_id ORDER BY x.created_at, x.run_id`);
      await db.raw(`ALTER TABLE ${s.table} ADD CONSTRAINT ${s.table}_pkey PRIMARY KEY (${s.column}, created_at, run_id)`);
      await db.raw(`DROP TABLE ${s.table}_unlined`);
    }
    for (const sql of triggerSql()) await db.raw(sql);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).oneWriter) return;
    await db.raw('DROP TRIGGER IF EXISTS runs_side_lines_insert ON runs');
    await db.raw('DROP TRIGGER IF EXISTS runs_side_lines_update ON runs');
    await db.raw('DROP FUNCTION IF EXISTS chainflow_side_lines_of_new_run(), chainflow_side_lines_of_changed_run()');
    for (const s of LINED_SIDE_TABLES) {
      await db.raw(`DROP TRIGGER IF EXISTS ${s.table}_lines ON ${s.table}`);
      await db.raw(`DROP FUNCTION IF EXISTS chainflow_lines_of_new_${s.table}()`);
      await db.raw(`ALTER TABLE ${s.table} DROP COLUMN line`);
    }
  },
};
