/** Whether the storage answers (for `GET /health`). */
export interface StorageHealth {
  /** Resolves when a trivial query succeeds; rejects otherwise. */
  ping(): Promise<void>;
}
export const StorageHealth = Symbol('StorageHealth');
