import type { Knex } from 'knex';

/**
 * Indexes of the history lists other than runs (issue: sends, approvals, waiting, reorgs, replays): each
 * list pages newest first on (its time, its id), and each filter is an index on (filter, time, id), so that
 * any page, first or deep, is one index range.
 */
export const LIST_INDEXES: ReadonlyArray<{ table: string; time: string; id: string; filters: readonly string[]; where?: string; prefix?: string }> = [
  { table: 'sends', time: 'created_at', id: 'send_id', filters: ['workflow', 'network', 'relayer', 'status', 'outcome', 'session', 'run_id', 'tx_hash'] },
  { table: 'approvals', time: 'requested_at', id: 'approval_id', filters: ['workflow', 'status'] },
  // Partial: only the runs parked now. The unfiltered index leads with status so that the planner matches it to
  // the query's `status = 'waiting'` and its order (without it SQLite took runs_by_status and sorted).
  { table: 'runs', time: 'parked_at', id: 'run_id', filters: ['workflow', 'wait_kind'], where: "status = 'waiting'", prefix: 'status' },
  { table: 'reorgs', time: 'created_at', id: 'reorg_id', filters: ['workflow', 'network'] },
  { table: 'sessions', time: 'created_at', id: 'session_id', filters: ['workflow', 'kind'] },
];

function indexName(table: string, columns: readonly string[], partial: boolean): string {
  return `${table}_${partial ? 'waiting_' : 'list_'}${columns.join('_')}`;
}

export const listIndexes = {
  async up(db: Knex): Promise<void> {
    for (const { table, time, id, filters, where, prefix } of LIST_INDEXES) {
      for (const columns of [[...(prefix ? [prefix] : []), time, id], ...filters.map((f) => [f, time, id])]) {
        const name = indexName(table, columns, Boolean(where));
        await db.raw(`CREATE INDEX ${name} ON ${table} (${columns.join(', ')})${where ? ` WHERE ${where}` : ''}`);
      }
    }
    await db.schema.alterTable('sends', (t) => t.dropIndex([], 'sends_run'));
    await db.schema.createTable('workflow_stats', (t) => {
      t.string('workflow').primary();
      t.bigInteger('last_run_at');
      t.bigInteger('last_success_at');
      t.bigInteger('last_failure_at');
      t.integer('success_count').notNullable();
      t.integer('failure_count').notNullable();
      t.integer('tx_count').notNullable();
      t.string('recent_error_kind');
      t.bigInteger('recent_error_at');
      t.text('durations').notNullable();
    });
  },
  async down(db: Knex): Promise<void> {
    await db.schema.dropTableIfExists('workflow_stats');
    await db.schema.alterTable('sends', (t) => t.index(['run_id'], 'sends_run'));
    for (const { table, time, id, filters, where, prefix } of LIST_INDEXES) {
      for (const columns of [[...(prefix ? [prefix] : []), time, id], ...filters.map((f) => [f, time, id])]) {
        await db.raw(`DROP INDEX IF EXISTS ${indexName(table, columns, Boolean(where))}`);
      }
    }
  },
};
