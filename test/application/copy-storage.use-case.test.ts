/** CopyStorage's rules with ends in memory: same schema required, an empty target only, a difference never reported as verified. */
import { CopyStorage, TargetNotEmptyError } from '../../src/application/storage/copy-storage.use-case';
import type { CopiedTable, CopySource, CopyTarget, StoredRow } from '../../src/application/ports/storage-copy';

const TABLES: CopiedTable[] = [
  { name: 'meta', columns: ['key', 'value'], weiColumns: [] },
  { name: 'spend_entries', columns: ['id', 'value_wei'], weiColumns: ['value_wei'] },
];

function source(rows: Record<string, StoredRow[]>, migrations = ['a', 'b']): CopySource {
  return {
    migrations: async () => migrations,
    tables: async () => TABLES,
    count: async (t) => rows[t]?.length ?? 0,
    async *rows(table, batchSize) {
      const all = rows[table.name] ?? [];
      for (let i = 0; i < all.length; i += batchSize) yield all.slice(i, i + batchSize);
    },
    close: async () => undefined,
  };
}

/** A target in memory; `lose` drops the nth inserted row (a copy that went wrong). */
function target(initial: Record<string, StoredRow[]> = {}, lose?: number): CopyTarget & { tables: Record<string, StoredRow[]> } {
  const tables: Record<string, StoredRow[]> = { meta: [{ key: 'cursor_key', value: 'fresh' }], spend_entries: [], ...initial };
  let inserted = 0;
  return {
    tables,
    migrations: async () => ['a', 'b'],
    columnsOf: async (t) => (t in tables ? TABLES.find((x) => x.name === t)!.columns : undefined),
    batchLimit: () => 1000,
    count: async (t) => tables[t]!.length,
    transaction: async (work) => work({
      insert: async (t, _c, rows) => {
        for (const row of rows) if (++inserted !== lose) tables[t]!.push(row);
      },
      replace: async (t, _c, rows) => {
        tables[t] = [...rows];
      },
      finish: async () => undefined,
    }),
    weiSum: async (t, c) => tables[t]!.reduce((s, r) => s + BigInt(String(r[c])), 0n),
    close: async () => undefined,
  };
}

const ROWS = {
  meta: [{ key: 'cursor_key', value: 'old' }],
  spend_entries: [1, 2, 3, 4, 5].map((id) => ({ id, value_wei: (2n ** 70n + BigInt(id)).toString() })),
};

describe('CopyStorage', () => {
  it('copies in batches, overwrites the settings the migrations wrote, and verifies counts and exact sums', async () => {
    const to = target();
    const progress: number[] = [];
    const report = await new CopyStorage().execute(source(ROWS), to, { batchSize: 2, onProgress: (p) => progress.push(p.rows) });
    const sum = 5n * 2n ** 70n + 15n;
    expect(report).toEqual({
      rows: 6, skipped: [], verified: true,
      tables: [
        { table: 'meta', sourceRows: 1, targetRows: 1, sums: [] },
        { table: 'spend_entries', sourceRows: 5, targetRows: 5, sums: [{ column: 'value_wei', source: sum, target: sum }] },
      ],
    });
    expect(to.tables.meta).toEqual([{ key: 'cursor_key', value: 'old' }]);
    expect(progress).toEqual([1, 3, 5, 6]);
  });

  it('reports a copy that lost a row as not verified, naming the table\'s counts and sums', async () => {
    const report = await new CopyStorage().execute(source(ROWS), target({}, 3));
    expect(report.verified).toBe(false);
    expect(report.tables[1]).toMatchObject({ table: 'spend_entries', sourceRows: 5, targetRows: 4 });
    expect(report.tables[1]!.sums[0]!.source - report.tables[1]!.sums[0]!.target).toBe(2n ** 70n + 3n); // the third row inserted: id 3 (meta is replaced, not inserted)
  });

  it('refuses a target with data and a source of another schema, copying nothing', async () => {
    const occupied = target({ spend_entries: [{ id: 9, value_wei: '1' }] });
    await expect(new CopyStorage().execute(source(ROWS), occupied)).rejects.toThrow(TargetNotEmptyError);
    expect(occupied.tables.spend_entries).toHaveLength(1);
    const fresh = target();
    await expect(new CopyStorage().execute(source(ROWS, ['a']), fresh)).rejects.toThrow(/^from: the source journal's schema \(1 migrations\) is not this chainflow's \(2\)/);
    expect(fresh.tables.spend_entries).toEqual([]);
  });

  it('leaves the runs waiting per workflow to the target, whose triggers count them from the runs copied: not copied, not reported', async () => {
    const waiting: CopiedTable = { name: 'workflow_waiting', columns: ['workflow', 'runs'], weiColumns: [] };
    const from: CopySource = { ...source({ ...ROWS, workflow_waiting: [{ workflow: 'payouts', runs: 2 }] }), tables: async () => [...TABLES, waiting] };
    const to = target({ workflow_waiting: [] });
    const report = await new CopyStorage().execute(from, { ...to, columnsOf: async (t) => (t === waiting.name ? ['workflow', 'slot', 'runs'] : to.columnsOf(t)) });
    expect(report).toMatchObject({ verified: true, skipped: [], rows: 6 });
    expect(report.tables.map((t) => t.table)).toEqual(['meta', 'spend_entries']);
    expect(to.tables.workflow_waiting).toEqual([]);
  });

  it('copies a journal whose migrations ran in another order (branches merged between two upgrades)', async () => {
    const to = target();
    const report = await new CopyStorage().execute(source(ROWS, ['b', 'a']), to);
    expect(report.verified).toBe(true);
    expect(to.tables.spend_entries).toHaveLength(5);
  });
});
