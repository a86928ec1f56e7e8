import type { BudgetChecked } from '../../domain/journal/journal-event';
import type { CapCheck } from '../../domain/spend/budget';

export interface BudgetCheckRequest {
  readonly runId: string;
  readonly stepRunId: string;
  /** The send the reservations are held for (released by `release(sendId)`). */
  readonly sendId: string;
  readonly workflow: string;
  readonly relayer: string;
  /** Native value the send would move, in wei. */
  readonly valueWei: bigint;
  /** For token transfers: the token contract (lowercase) and the amount in its base units. */
  readonly token?: { readonly address: string; readonly amount: bigint };
}

export interface BudgetVerdict {
  readonly allowed: boolean;
  readonly checks: readonly CapCheck[];
  /** One `budget.checked` per cap checked, for the caller to journal with its next write. */
  readonly events: readonly BudgetChecked[];
  /** Set when refused: the step's error. */
  readonly error?: { readonly kind: 'budget_exceeded'; readonly message: string };
}

/**
 * The budgets as the send path sees them (CONTRACT 8.5, 8.7): checked and, when allowed, reserved in one atomic step
 * before any broadcast; released when the send ends without broadcasting. Implemented by the spend feature, so that
 * sends do not import it.
 */
export interface SendBudget {
  /** Checks every cap charging the send and reserves its value caps when all allow (nothing is reserved otherwise). */
  evaluate(request: BudgetCheckRequest): Promise<BudgetVerdict>;
  /** The send ended without broadcasting: what it reserved counts no more. */
  release(sendId: string): Promise<void>;
}
export const SendBudget = Symbol('SendBudget');
