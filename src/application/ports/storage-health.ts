/** The storage's technology, as `GET /health` names it (never its URL). */
export type StorageKind = 'sqlite' | 'postgres';

/** Whether the storage answers (for `GET /health`). */
export interface StorageHealth {
  /** Which storage this process was configured with. */
  kind(): StorageKind;
  /** Resolves when a trivial query succeeds; rejects otherwise. */
  ping(): Promise<void>;
  /** Row counts of the journal's tables (runs, events, sends, approvals), for metrics. */
  sizes(): Promise<Record<string, number>>;
}
export const StorageHealth = Symbol('StorageHealth');
