import type { Knex } from 'knex';
import { dialectOf } from './dialect';
import { storedJsonFunctions } from './item-sql';

/**
 * How full PostgreSQL fills a page of `runs` on insert. A run's row is updated at each step of its few seconds or
 * minutes, and an update that sets no indexed column (a step moves a run's step ids, its stored item and line) is
 * written beside the old row on the same page when there is room, without a new entry in each of the table's fifteen
 * indexes (a HOT update), and the old row is reclaimed in the page. Pages filled full have no room, so nearly every
 * update wrote every index again; with this space most of a run's updates are HOT, and the table ends smaller for
 * it: its dead rows are reclaimed in the page instead of waiting for a vacuum (docs/performance.md).
 * A finished run's row is not updated again, so the space costs only while its page's runs go on.
 */
const RUNS_FILLFACTOR = 70;

/**
 * Migration 0030, on PostgreSQL (issue #29): what an update of a run's row costs the database. STORED_JSON gets
 * its inlined body (storedJsonFunctions; the text it makes is the same, so the stored items and lines stay as they
 * are), and `runs` leaves room on its pages for the updates of runs going on (RUNS_FILLFACTOR; pages written
 * from now on). Nothing on SQLite.
 */
export const runsUpdatesMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).oneWriter) return;
    for (const sql of storedJsonFunctions()) await db.raw(sql);
    await db.raw(`ALTER TABLE runs SET (fillfactor = ${RUNS_FILLFACTOR})`);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).oneWriter) return;
    await db.raw('ALTER TABLE runs RESET (fillfactor)');
    for (const sql of storedJsonFunctions(true)) await db.raw(sql);
  },
};
