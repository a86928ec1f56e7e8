/** Whether the storage answers (for `GET /health`). */
export interface StorageHealth {
  /** Resolves when a trivial query succeeds; rejects otherwise. */
  ping(): Promise<void>;
  /** Row counts of the journal's tables (runs, events, sends, approvals), for metrics. */
  sizes(): Promise<Record<string, number>>;
}
export const StorageHealth = Symbol('StorageHealth');
