import { InvalidInputError } from '../../domain/errors';
import type { CopiedTable, CopySource, CopyTarget, CopyWriter, StoredRow } from '../ports/storage-copy';

/** Settings the migrations write into every new database: overwritten by the source's (not counted as content). */
const SETTINGS_TABLES = new Set(['meta']);
/**
 * Counts the target keeps itself from the rows copied (the runs waiting per workflow, kept by triggers on `runs`):
 * copied, they would count twice; and each store lays them out its own way (SQLite one row per workflow,
 * PostgreSQL one per workflow and backend).
 */
const KEPT_BY_TARGET = new Set(['workflow_waiting']);
/** Rows read and written at a time: large enough that a statement's round trip is small beside its rows. */
export const DEFAULT_COPY_BATCH = 2_000;

export interface CopyProgress {
  readonly table: string;
  /** Rows copied so far, all tables together. */
  readonly rows: number;
  readonly total: number;
}

/** One table's verification: rows on both ends, and each wei column's sum on both ends. */
export interface TableCheck {
  readonly table: string;
  readonly sourceRows: number;
  readonly targetRows: number;
  readonly sums: ReadonlyArray<{ readonly column: string; readonly source: bigint; readonly target: bigint }>;
}

export interface CopyReport {
  readonly tables: readonly TableCheck[];
  readonly rows: number;
  /** Tables of the source the target does not have (none while both run the same migrations). */
  readonly skipped: readonly string[];
  /** Every count and every sum equal on both ends. */
  readonly verified: boolean;
}

/** The target holds data already: a copy would mix two journals. */
export class TargetNotEmptyError extends InvalidInputError {
  constructor(readonly tables: readonly string[]) {
    super('to', `the target database is not empty (rows in ${tables.join(', ')}): copy into an empty database`);
  }
}

/**
 * `chainflow storage copy`: every table of a stored journal into an empty database of the same schema (issue #29,
 * part 6), in batches, in one transaction on the target; then verified by counting rows and summing wei columns on
 * both ends (the source's sums are taken from the very rows copied, the target's by the database).
 */
export class CopyStorage {
  async execute(source: CopySource, target: CopyTarget, options: { batchSize?: number; onProgress?: (p: CopyProgress) => void } = {}): Promise<CopyReport> {
    const [from, to] = await Promise.all([source.migrations(), target.migrations()]);
    // As sets: a journal that lived through merged branches applied, say, 0019 before 0017; its schema is the same.
    if ([...from].sort().join('\n') !== [...to].sort().join('\n')) {
      throw new InvalidInputError('from', `the source journal's schema (${from.length} migrations) is not this chainflow's (${to.length}): `
        + 'open it once with this version (any command, e.g. chainflow history, with storage.url set to it), then copy');
    }
    const tables = await source.tables();
    const plan: CopiedTable[] = [];
    const skipped: string[] = [];
    for (const table of tables) {
      if (KEPT_BY_TARGET.has(table.name)) continue;
      const there = await target.columnsOf(table.name);
      if (!there) {
        skipped.push(table.name);
        continue;
      }
      // Columns a database computes itself (the stored items) are listed by neither side: each computes its own.
      const columns = table.columns.filter((c) => there.includes(c));
      plan.push({ name: table.name, columns, weiColumns: table.weiColumns.filter((c) => columns.includes(c)) });
    }
    const occupied: string[] = [];
    for (const table of plan) if (!SETTINGS_TABLES.has(table.name) && (await target.count(table.name)) > 0) occupied.push(table.name);
    if (occupied.length) throw new TargetNotEmptyError(occupied);

    const sourceRows = new Map<string, number>();
    for (const table of plan) sourceRows.set(table.name, await source.count(table.name));
    const total = [...sourceRows.values()].reduce((a, b) => a + b, 0);
    const sourceSums = new Map<string, Map<string, bigint>>();
    let copied = 0;
    await target.transaction(async (writer) => {
      for (const table of plan) {
        const sums = new Map(table.weiColumns.map((c) => [c, 0n]));
        sourceSums.set(table.name, sums);
        const batch = Math.max(1, Math.min(options.batchSize ?? DEFAULT_COPY_BATCH, target.batchLimit(table.columns.length)));
        // The next batch is read while this one is written: the two databases work at once.
        const batches = source.rows(table, batch)[Symbol.asyncIterator]();
        // A read still running when a write fails is awaited by nobody: its failure must not go unhandled.
        const ahead = (): Promise<IteratorResult<StoredRow[]>> => {
          const read = batches.next();
          read.catch(() => undefined);
          return read;
        };
        let next = ahead();
        for (;;) {
          const { done, value: rows } = await next;
          if (done) break;
          next = ahead();
          addWei(sums, rows);
          await write(writer, table, rows);
          copied += rows.length;
          options.onProgress?.({ table: table.name, rows: copied, total });
        }
      }
      await writer.finish(plan.map((t) => t.name));
    });

    const checks: TableCheck[] = [];
    for (const table of plan) {
      const sums = [];
      for (const [column, sum] of sourceSums.get(table.name) ?? []) sums.push({ column, source: sum, target: await target.weiSum(table.name, column) });
      checks.push({ table: table.name, sourceRows: sourceRows.get(table.name) ?? 0, targetRows: await target.count(table.name), sums });
    }
    const verified = checks.every((c) => c.sourceRows === c.targetRows && c.sums.every((s) => s.source === s.target));
    return { tables: checks, rows: copied, skipped, verified };
  }
}

async function write(writer: CopyWriter, table: CopiedTable, rows: readonly StoredRow[]): Promise<void> {
  if (SETTINGS_TABLES.has(table.name)) await writer.replace(table.name, table.columns, rows);
  else await writer.insert(table.name, table.columns, rows);
}

/** Adds each row's wei columns (decimal text, exact) to the running sums. */
function addWei(sums: Map<string, bigint>, rows: readonly StoredRow[]): void {
  for (const [column, sum] of sums) {
    let s = sum;
    for (const row of rows) {
      const value = row[column];
      if (value !== null && value !== undefined && value !== '') s += BigInt(String(value));
    }
    sums.set(column, s);
  }
}
