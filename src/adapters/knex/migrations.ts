import { sessionRunsMigration } from './migration-session-runs';
import { workflowPauseMigration } from './migration-workflow-pause';
import { weiNumericMigration } from './migration-wei';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { bearers } from './migration-bearers';
import { budgetReservationsMigration } from './migration-budget-reservations';
import { listIndexes } from './migration-lists';
import { withoutRowid } from './schema';
import { spend } from './migration-spend';
import { engine, engineGuarantees } from './migration-engine';
import { relayerTopups } from './migration-relayers';
import { sends } from './migration-sends';
import {
  approvalItemsMigration, approvalsColumns, generatedItemsMigration, generatedLinesMigration, runsColumns, sendsColumns, sendTokenTransferMigration, storedItemsMigration,
} from './migration-items';
import { waitingCounts, waitingSlotsMigration } from './migration-waiting';
import { waitingCursorMigration, waitingPagesMigration } from './migration-waiting-pages';
import { stepRunsMigration } from './step-runs-store';
import { notificationsMigration } from './migration-notifications';
import { eventsMigration } from './migration-events';
import { reorgsMigration } from './migration-reorgs';
import { receiptClaimsMigration } from './migration-receipt-claims';
import { reorgedSendsMigration } from './migration-reorged-sends';
import { sideLinesMigration } from './migration-side-lines';
import { runsUpdatesMigration } from './migration-runs-updates';

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/** Indexed run filters: each gets (column, created_at, run_id) so that a filtered page is one index range. */
export const RUN_FILTER_COLUMNS = [
  'workflow', 'status', 'trigger_kind', 'network', 'contract', 'block', 'error_kind', 'approval_status', 'session',
] as const;

/** Multi-valued run filters live in side tables keyed (value, created_at, run_id). */
export const RUN_LIST_TABLES = {
  relayers: { table: 'run_relayers', column: 'relayer' },
  txHashes: { table: 'run_tx_hashes', column: 'tx_hash' },
  stepIds: { table: 'run_step_ids', column: 'step_id' },
} as const;

const initial: Migration = {
  async up(db) {
    await db.schema.createTable('meta', (t) => {
      t.string('key').primary();
      t.text('value').notNullable();
    });
    await db('meta').insert({ key: 'cursor_key', value: randomBytes(32).toString('hex') });

    // Events are clustered by stream: a run's events are read together and appended together. `seq` is the
    // event's ordinal within its stream; `hash` identifies its content (duplicates are skipped on append).
    await db.schema.createTable('events', (t) => {
      t.string('stream', 160).notNullable();
      t.integer('seq').notNullable();
      t.string('hash', 32).notNullable();
      t.string('type', 32).notNullable();
      t.bigInteger('at').notNullable();
      t.text('body').notNullable();
      t.primary(['stream', 'seq']);
    });
    await withoutRowid(db, 'events');

    await db.schema.createTable('runs', (t) => {
      runsColumns(t);
      t.index(['created_at', 'run_id'], 'runs_page');
      for (const column of RUN_FILTER_COLUMNS) t.index([column, 'created_at', 'run_id'], `runs_by_${column}`);
    });
    for (const { table, column } of Object.values(RUN_LIST_TABLES)) {
      await db.schema.createTable(table, (t) => {
        t.string(column).notNullable();
        t.bigInteger('created_at').notNullable();
        t.string('run_id', 128).notNullable();
        t.primary([column, 'created_at', 'run_id']);
      });
      await withoutRowid(db, table);
    }

    await db.schema.createTable('sends', (t) => {
      sendsColumns(t);
      t.index(['run_id'], 'sends_run');
    });
    await db.schema.createTable('approvals', (t) => {
      approvalsColumns(t);
      t.index(['run_id'], 'approvals_run');
    });
    await db.schema.createTable('reorgs', (t) => {
      t.string('reorg_id', 128).primary();
      t.string('run_id', 128).notNullable().index('reorgs_run');
      t.string('workflow').notNullable();
      t.string('network').notNullable();
      t.bigInteger('block').notNullable();
      t.string('removed_block_hash');
      t.bigInteger('created_at').notNullable();
      t.text('steps').notNullable();
    });
    await db.schema.createTable('sessions', (t) => {
      t.string('session_id', 128).primary();
      t.string('kind', 8).notNullable();
      t.string('workflow').notNullable();
      t.bigInteger('created_at').notNullable();
      t.bigInteger('finished_at');
      t.integer('run_count').notNullable();
      t.bigInteger('from_block');
      t.bigInteger('to_block');
      t.text('note');
    });
    await db.schema.createTable('workflow_states', (t) => {
      t.string('workflow').primary();
      t.boolean('paused').notNullable();
      t.string('trigger');
      t.string('network');
      t.bigInteger('cursor_block');
      t.bigInteger('head_block');
      t.bigInteger('updated_at').notNullable();
    });
  },
  async down(db) {
    for (const table of ['workflow_states', 'sessions', 'reorgs', 'approvals', 'sends', 'run_step_ids', 'run_tx_hashes', 'run_relayers', 'runs', 'events', 'meta']) {
      await db.schema.dropTableIfExists(table);
    }
  },
};

const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ['0001_journal', initial], ['0002_history_lists', listIndexes], ['0003_bearers', bearers], ['0004_spend', spend], ['0005_engine', engine],
  ['0006_relayer_topups', relayerTopups], ['0007_sends', sends], ['0008_perf_read_waiting', waitingCounts],
  ['0009_export_step_runs', stepRunsMigration], ['0010_stored_items', storedItemsMigration],
  ['0011_waiting_pages', waitingPagesMigration], ['0012_approval_items', approvalItemsMigration],
  ['0013_budget_reservations', budgetReservationsMigration], ['0014_send_token_transfer', sendTokenTransferMigration],
  ['0015_engine_guarantees', engineGuarantees], ['0016_notifications', notificationsMigration],
  ['0017_event_cursors', eventsMigration], ['0019_receipt_claims', receiptClaimsMigration],
  ['0020_reorgs', reorgsMigration],
  ['0021_workflow_pause_unknown', workflowPauseMigration], ['0022_reorged_sends', reorgedSendsMigration],
  ['0023_wei_numeric', weiNumericMigration],
  ['0024_session_runs', sessionRunsMigration], ['0025_generated_items', generatedItemsMigration],
  ['0026_waiting_slots', waitingSlotsMigration], ['0027_generated_lines', generatedLinesMigration],
  ['0028_waiting_cursor', waitingCursorMigration], ['0029_side_lines', sideLinesMigration],
  ['0030_runs_updates', runsUpdatesMigration],
];

/** Migrations compiled into the program (no directory scan at start-up). */
export const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => MIGRATIONS.map(([, m]) => m),
  getMigrationName: (m) => MIGRATIONS.find(([, x]) => x === m)![0],
  getMigration: async (m) => m,
};
