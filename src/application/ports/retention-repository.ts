/** How much of the journal lies before a cut, by table. */
export interface PruneCounts {
  runs: number;
  events: number;
  sends: number;
  approvals: number;
  reorgs: number;
}

/** Bounds the journal: removes runs that started before a cut, with everything journaled against them. */
export interface RetentionRepository {
  /** What `prune(cut)` would remove (epoch ms; runs with created_at < cut). */
  countBefore(cut: number): Promise<PruneCounts>;
  /**
   * Removes it, in one transaction. Never touches the spend ledger. `onStep(done, steps)`: called as each table is
   * done (progress of a long removal).
   */
  pruneBefore(cut: number, onStep?: (done: number, steps: number) => void): Promise<PruneCounts>;
}
export const RetentionRepository = Symbol('RetentionRepository');
