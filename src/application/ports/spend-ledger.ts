import type { LedgerEntry, PendingReceipt } from '../../domain/spend/ledger-entry';
import type { ComboTotals } from '../../domain/spend/spend-totals';

/** Which ledger entries a query covers. Each list matches any of its names; absent means every one. */
export interface SpendFilter {
  readonly workflows?: readonly string[];
  readonly relayers?: readonly string[];
  readonly networks?: readonly string[];
  /** recorded_at >= since (epoch ms). */
  readonly since?: number;
  /** recorded_at <= until (epoch ms). */
  readonly until?: number;
}

export interface LedgerAppendResult {
  readonly written: number;
  /** Entries skipped because one with the same (step_run_id, tx_hash) is already recorded. */
  readonly duplicates: number;
}

/**
 * The spend ledger: append-only, durable, one entry per landed send, keyed by (step_run_id, tx_hash).
 * Summaries are exact over the whole filtered ledger whatever its size (an adapter keeps rollups up to date
 * on append rather than reading every entry).
 */
export interface SpendLedger {
  /** Appends entries atomically; an entry whose key is already recorded is skipped (never counted twice). */
  append(entries: readonly LedgerEntry[]): Promise<LedgerAppendResult>;
  /** Totals per (workflow, relayer, network) over the filtered ledger. */
  totals(filter: SpendFilter): Promise<ComboTotals[]>;
  /** The newest entries first (recorded_at descending, then the order they were recorded in, newest first). */
  latest(filter: SpendFilter, limit: number): Promise<LedgerEntry[]>;
  /** Every filtered entry, oldest first, in pages. */
  scan(filter: SpendFilter, pageSize: number): AsyncIterable<LedgerEntry[]>;
}
export const SpendLedger = Symbol('SpendLedger');

/**
 * Landed sends whose journaled receipt had no gas numbers: written in the same transaction as their settle
 * event, so that a crash between the journal write and the ledger write loses nothing. Each gets one
 * receipt read; a failed read leaves a gap (counted, never retried on its own).
 */
export interface PendingReceipts {
  /** The oldest pending reads (not failed ones). */
  pending(limit: number): Promise<PendingReceipt[]>;
  /**
   * Takes up to `limit` of the oldest pending reads that no other drain holds (none, or its claim ran out at `now`),
   * each held by `owner` until `claimUntil` (on the database's clock on PostgreSQL, CONTRACT 10): the drains of
   * several processes read different receipts. `owner` takes again what it holds; complete and fail end a claim.
   */
  claim(owner: string, now: number, claimUntil: number, limit: number): Promise<PendingReceipt[]>;
  /** Records the completed entry and clears the pending read, atomically. */
  complete(pending: PendingReceipt, entry: LedgerEntry): Promise<void>;
  /** Marks the read failed: a ledger gap. */
  fail(pending: PendingReceipt, reason: string): Promise<void>;
  /** Failed reads (ledger gaps) and reads still pending. */
  counts(): Promise<{ pending: number; gaps: number }>;
}
export const PendingReceipts = Symbol('PendingReceipts');
