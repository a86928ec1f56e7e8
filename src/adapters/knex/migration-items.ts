import type { Knex } from 'knex';
import { dialectOf } from './dialect';
import { approvalItemPieces, joinedSql, runItemHead, sendItemPieces, STORED_JSON, type ItemDialect } from './item-sql';
import { APPROVAL_COLUMNS, RUN_COLUMNS } from './rows';

/** The columns of `runs` (the run projection), as migration 0001 made them and as 0010 makes them again. */
export function runsColumns(t: Knex.CreateTableBuilder): void {
  t.string('run_id', 128).primary();
  t.string('workflow').notNullable();
  t.string('status', 16).notNullable();
  t.string('trigger_kind').notNullable();
  t.string('session', 8).notNullable();
  t.string('session_id', 128);
  t.string('network');
  t.string('contract');
  t.bigInteger('block');
  t.text('relayers').notNullable();
  t.text('tx_hashes').notNullable();
  t.text('step_ids').notNullable();
  t.string('error_kind');
  t.string('approval_status', 16);
  t.string('wait_kind', 16);
  t.bigInteger('parked_at');
  t.string('wait_step_run_id', 128);
  t.bigInteger('due_at');
  t.bigInteger('expires_at');
  t.string('replay_of', 128);
  t.bigInteger('created_at').notNullable();
  t.bigInteger('finished_at');
  t.bigInteger('duration_ms');
}

/** The columns of `sends` (CONTRACT section 4's send attempts), as migration 0001 made them and as 0010 makes them again. */
export function sendsColumns(t: Knex.CreateTableBuilder): void {
  t.string('send_id', 128).primary();
  t.string('run_id', 128).notNullable();
  t.string('step_run_id', 128).notNullable();
  t.string('workflow').notNullable();
  t.string('session', 8).notNullable();
  t.string('network').notNullable();
  t.bigInteger('chain_id').notNullable();
  t.string('relayer').notNullable();
  t.string('status', 16).notNullable();
  t.string('outcome', 16);
  t.string('tx_hash');
  t.string('idempotency_key').notNullable();
  t.string('to_address').notNullable();
  t.text('value_wei').notNullable();
  t.text('receipt');
  t.bigInteger('created_at').notNullable();
  t.bigInteger('updated_at').notNullable();
}

/** The columns of `approvals`, as migration 0001 made them and as 0012 makes them again. */
export function approvalsColumns(t: Knex.CreateTableBuilder): void {
  t.string('approval_id', 128).primary();
  t.string('run_id', 128).notNullable();
  t.string('step_run_id', 128).notNullable();
  t.string('workflow').notNullable();
  t.string('status', 16).notNullable();
  t.text('message');
  t.bigInteger('requested_at').notNullable();
  t.bigInteger('expires_at');
  t.bigInteger('decided_at');
  t.string('decided_by');
  t.text('reason');
}

/**
 * A send's item (SendAttemptItem) as SQLite (or PostgreSQL, migration 0025) renders it from the row: its members up
 * to `"explorer_url":`, a tab where the link goes (configuration, so never stored), then `to` and `value_wei`,
 * without the times and the closing brace (see sendItemOfStored).
 */
const sendItem = (withTokenTransfer: boolean, dialect: ItemDialect = 'sqlite'): string => {
  const { head, middle } = sendItemPieces('', withTokenTransfer, dialect);
  return joinedSql(dialect, [head, `',"explorer_url":'`, tab(dialect), middle]);
};
/** SQL of a tab. */
const tab = (dialect: ItemDialect): string => (dialect === 'sqlite' ? 'char(9)' : 'chr(9)');
/** The sends' columns as migration 0010 found them (0014 added `token_transfer`). */
const SEND_COLUMNS_0010 = [
  'send_id', 'run_id', 'step_run_id', 'workflow', 'session', 'network', 'chain_id', 'relayer', 'status', 'outcome',
  'tx_hash', 'idempotency_key', 'to_address', 'value_wei', 'receipt', 'created_at', 'updated_at',
] as const;

/** A run's item (RunItem) up to its times, as SQLite renders it from the row (runItemHead; runItemText adds the times). */
const RUN_ITEM = runItemHead('');

/** An approval's item (ApprovalItem) without its times: its members up to `message`, a tab where the times go, `decided_by` and `reason`. */
const approvalItem = (dialect: ItemDialect = 'sqlite'): string => {
  const { head, tail } = approvalItemPieces('', dialect);
  return joinedSql(dialect, [head, tab(dialect), tail]);
};
const APPROVAL_ITEM = approvalItem();

/** The tables that keep their rendered item: its SQL, and what makes the table again. */
const STORED_ITEMS = [
  { table: 'runs', columns: runsColumns, names: RUN_COLUMNS, item: RUN_ITEM },
  { table: 'sends', columns: sendsColumns, names: SEND_COLUMNS_0010, item: sendItem(false) },
] as const;

/**
 * Migration 0010, on a SQLite file: `runs` and `sends` keep the item of each row (`item`, a stored generated column),
 * which SQLite computes on every insert and update of the row, in the same statement, so no writer can leave it stale
 * and none can write it. The runs and txs pages and the export read it instead of rendering a dozen values a row
 * (docs/performance.md, Read path). SQLite adds a stored generated column only to a new table, so each table is made
 * again: its rows copied in their order, its indexes and triggers made again from their SQL as they were. Elsewhere
 * nothing changes: those pages are rendered in JavaScript there.
 */
export const storedItemsMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).storedItems) for (const t of STORED_ITEMS) await rebuild(db, t.table, t.columns, t.names, t.item);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).storedItems) for (const t of STORED_ITEMS) await rebuild(db, t.table, t.columns, t.names);
  },
};

/** `table` made again with its stored item (adapters/sqlite, sqlite-rebuild.ts), where the database keeps them. */
async function rebuild(db: Knex, table: string, columns: (t: Knex.CreateTableBuilder) => void, names: readonly string[], item?: string): Promise<void> {
  await dialectOf(db).rebuildWithItem(db, table, columns, names, item);
}

/** Migration 0012, on a SQLite file: `approvals` keeps its rows' items too, as 0010 made `runs` and `sends` keep theirs. */
export const approvalItemsMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).storedItems) await rebuild(db, 'approvals', approvalsColumns, APPROVAL_COLUMNS, APPROVAL_ITEM);
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).storedItems) await rebuild(db, 'approvals', approvalsColumns, APPROVAL_COLUMNS);
  },
};

/**
 * Migration 0014: a send's `token_transfer` (CONTRACT 8.8; JSON text, NULL for sends that are not token transfers,
 * so every journal from before reads as it did). On SQLite the stored item is made again with it (a table rebuild,
 * as 0010 made it); elsewhere a column is added.
 */
export const sendTokenTransferMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).storedItems) {
      await rebuild(db, 'sends', (t) => {
        sendsColumns(t);
        t.text('token_transfer');
      }, SEND_COLUMNS_0010, sendItem(true));
    } else {
      await db.schema.alterTable('sends', (t) => t.text('token_transfer'));
    }
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).storedItems) await rebuild(db, 'sends', sendsColumns, SEND_COLUMNS_0010, sendItem(false));
    else await db.schema.alterTable('sends', (t) => t.dropColumn('token_transfer'));
  },
};

/**
 * Migration 0025, on PostgreSQL (issue #29): `runs`, `sends` and `approvals` keep their rows' items too, the same
 * texts as SQLite's (the contract tests hold both to them), as generated columns PostgreSQL computes on every insert
 * and update of a row: a list page then reads each row's item instead of rendering a dozen values a row in its
 * query, which was most of a page's time in PostgreSQL (docs/benchmarks.md). Adding them rewrites each table once.
 * On SQLite nothing changes: its items are there since 0010, 0012 and 0014.
 */
export const generatedItemsMigration = {
  async up(db: Knex): Promise<void> {
    const generated = dialectOf(db).generatedItems;
    if (!generated) return;
    await generated.add(db, [
      { table: 'runs', item: runItemHead('', 'postgres-stored') },
      { table: 'sends', item: sendItem(true, 'postgres-stored') },
      { table: 'approvals', item: approvalItem('postgres-stored') },
    ]);
  },
  async down(db: Knex): Promise<void> {
    await dialectOf(db).generatedItems?.drop(db, ['runs', 'sends', 'approvals']);
  },
};

/** Pieces of text joined by tabs in a generated column's expression; `nullable` pieces as '' for NULL (as `concat` has them). */
function tabbed(pieces: ReadonlyArray<string | { readonly nullable: string }>): string {
  return joinedSql('postgres-stored', pieces.flatMap((piece, i) => [...(i ? ['chr(9)'] : []), typeof piece === 'string' ? piece : `coalesce(${piece.nullable}, '')`]));
}

/**
 * The whole line of each list page, as the lists read it on SQLite (KnexRunRepository's ITEM_TEXT,
 * KnexHistoryRepository's SEND_LINES and APPROVAL_LINES: the item, then tab-separated what the times, the link and
 * the position are made of), in the `postgres-stored` form.
 */
const GENERATED_LINES = {
  runs: tabbed([runItemHead('', 'postgres-stored'), 'created_at::text', { nullable: 'finished_at::text' }, { nullable: 'duration_ms::text' }, 'run_id::text', 'status::text']),
  sends: tabbed([sendItem(true, 'postgres-stored'), `${STORED_JSON}(network::text)`, 'chain_id::text', `${STORED_JSON}(tx_hash::text)`, 'created_at::text', 'updated_at::text', 'send_id::text']),
  approvals: tabbed([approvalItem('postgres-stored'), 'requested_at::text', { nullable: 'expires_at::text' }, { nullable: 'decided_at::text' }, 'approval_id::text']),
} as const;

/**
 * Migration 0027, on PostgreSQL (issue #29): each row of `runs`, `sends` and `approvals` keeps its whole page line
 * (`line`, GENERATED_LINES) instead of its item alone: a page read each row's item and rendered five to seven more
 * values around it: PostgreSQL's output of a bigint or a JSON string, per value and row, was a third of a sends
 * page's statement (docs/benchmarks.md). Adding the column rewrites each table once. On SQLite nothing changes.
 */
export const generatedLinesMigration = {
  async up(db: Knex): Promise<void> {
    const generated = dialectOf(db).generatedItems;
    if (!generated) return;
    await generated.drop(db, ['runs', 'sends', 'approvals']);
    await generated.add(db, (['runs', 'sends', 'approvals'] as const).map((table) => ({ table, item: GENERATED_LINES[table] })), 'line');
  },
  async down(db: Knex): Promise<void> {
    const generated = dialectOf(db).generatedItems;
    if (!generated) return;
    await generated.drop(db, ['runs', 'sends', 'approvals'], 'line');
    await generatedItemsMigration.up(db);
  },
};
