/**
 * The two ends of `chainflow storage copy`: a stored journal read table by table, and an empty database written
 * the same way. Rows are the storage's own (column name → value), since a copy moves storage, not domain objects;
 * only the adapters read inside them, and the use case reads only the wei columns they name.
 */

/** A stored row as the driver gives it. */
export type StoredRow = Readonly<Record<string, unknown>>;

/** A table the migrations create: the columns a copy moves, and those that hold wei (decimal strings). */
export interface CopiedTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly weiColumns: readonly string[];
}

/** Both ends: which migrations made the schema, and what a table holds now. */
export interface CopyEnd {
  /** The names of the migrations applied, in order. */
  migrations(): Promise<string[]>;
  count(table: string): Promise<number>;
  close(): Promise<void>;
}

/** The journal copied from, read as one snapshot (writes made meanwhile by another process are not seen). */
export interface CopySource extends CopyEnd {
  /** Every data table, in the order the copy writes them (the migrations' order of creation). */
  tables(): Promise<CopiedTable[]>;
  /** All rows of `table` in batches of at most `batchSize`, streamed in key order (never the whole table in memory). */
  rows(table: CopiedTable, batchSize: number): AsyncIterable<StoredRow[]>;
}

/** The database copied into. */
export interface CopyTarget extends CopyEnd {
  /** The columns `table` has here (a table that is not here: undefined). */
  columnsOf(table: string): Promise<readonly string[] | undefined>;
  /** The largest number of rows one insert of `columns` may carry (the driver's limit on parameters). */
  batchLimit(columns: number): number;
  /**
   * Runs `work` in one transaction: all of the copy lands or none of it (a failed copy leaves the target empty, so
   * it can be run again). `insert` appends rows; `replace` overwrites a table's rows (the settings the migrations
   * wrote, such as the cursor key).
   */
  transaction(work: (writer: CopyWriter) => Promise<void>): Promise<void>;
  /** Exact sum of a wei column (decimal text) over the whole table. */
  weiSum(table: string, column: string): Promise<bigint>;
}

export interface CopyWriter {
  insert(table: string, columns: readonly string[], rows: readonly StoredRow[]): Promise<void>;
  replace(table: string, columns: readonly string[], rows: readonly StoredRow[]): Promise<void>;
  /** After the rows: counters the database keeps beside them (serial sequences) continue after the copied ids. */
  finish(tables: readonly string[]): Promise<void>;
}
