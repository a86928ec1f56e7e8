import type { TopupAttempt, TopupResult } from '../../domain/relayers/topup';
import type { ListFilter } from './history-repository';
import type { PageRequest } from './run-repository';

/**
 * The operator audit trail of top-ups (CONTRACT 9): one row per attempt, recorded `pending` before anything
 * reaches the chain and completed once the attempt ended. Rows are never removed.
 */
export interface TopupAudit {
  /** Records a new attempt (outcome `pending`). */
  record(attempt: TopupAttempt): Promise<void>;
  /**
   * Completes a pending attempt with how it ended, or a `submitted` one whose transaction settled later; any other
   * completed row is left as it is.
   */
  complete(topupId: string, result: TopupResult): Promise<void>;
  /**
   * Attempts newest first on (at, topup_id), strictly after `page.after`. `filter.equals` may name `from`, `to`,
   * `network`, `outcome` and `by`; `since` / `until` bound `at`.
   */
  list(filter: ListFilter, page: PageRequest): Promise<TopupAttempt[]>;
}
export const TopupAudit = Symbol('TopupAudit');
