import type { ComboTotals } from './spend-totals';

/**
 * Budgets as the send path applies them (SPEC, Budget; Limits). A send is charged against a budget only if
 * its workflow lists the budget and its relayer is within the budget's scope (no `scope.relayers`: every
 * relayer).
 *
 * - max_gas_spend: a circuit breaker on recorded truth. Refused once the recorded gas spend of the charged
 *   sends inside the window has reached the cap; sends already in flight may exceed it by their own gas.
 * - max_native_value: a reservation. Refused when the value reserved by the budget's sends in flight, plus the
 *   value recorded in the window, plus this send's value would exceed the cap. A reservation counts until its send
 *   settles (its value then counts in the ledger), and is released when the send ends without broadcasting.
 * - max_token_value: a reservation per token contract, in the token's base units. Refused when the amounts
 *   reserved by the budget's sends of the same token inside the window, plus this send's amount, would exceed the
 *   cap. A reservation counts for the whole window unless its send ended without landing (no token moved).
 * Check and reservation are one atomic step of the storage (BudgetReservations.reserve).
 */
export type CapKind = 'max_gas_spend' | 'max_native_value' | 'max_token_value';

export interface BudgetRule {
  readonly name: string;
  readonly windowMs: number;
  readonly maxGasSpendWei?: bigint;
  readonly maxNativeValueWei?: bigint;
  readonly maxTokenValue?: bigint;
  /** Relayers in scope; undefined: all. */
  readonly relayers?: readonly string[];
  /** Workflows that opted in (list the budget). */
  readonly workflows: readonly string[];
}

export function charges(rule: BudgetRule, workflow: string, relayer: string): boolean {
  return rule.workflows.includes(workflow) && (rule.relayers === undefined || rule.relayers.includes(relayer));
}

/** One cap checked for one send. `spentWei` is what counted before this send. */
export interface CapCheck {
  readonly budget: string;
  readonly cap: CapKind;
  readonly spentWei: bigint;
  readonly capWei: bigint;
  /** What this send adds (0 for the gas cap: its gas is not known before it lands). */
  readonly requestWei: bigint;
  readonly allowed: boolean;
  /** Token contract, for max_token_value. */
  readonly token?: string;
}

export function gasCheck(budget: string, spent: bigint, cap: bigint): CapCheck {
  return { budget, cap: 'max_gas_spend', spentWei: spent, capWei: cap, requestWei: 0n, allowed: spent < cap };
}

export function reservationCheck(budget: string, cap: 'max_native_value' | 'max_token_value', reserved: bigint, request: bigint, capWei: bigint, token?: string): CapCheck {
  return { budget, cap, spentWei: reserved, capWei, requestWei: request, allowed: reserved + request <= capWei, ...(token ? { token } : {}) };
}

export function refusal(checks: readonly CapCheck[]): string | undefined {
  const first = checks.find((c) => !c.allowed);
  if (!first) return undefined;
  if (first.cap === 'max_gas_spend') {
    return `budget '${first.budget}': recorded gas spend ${first.spentWei} wei has reached max_gas_spend ${first.capWei} wei`;
  }
  const what = first.cap === 'max_token_value' ? `token ${first.token} amount` : 'native value';
  return `budget '${first.budget}': ${what} ${first.spentWei} reserved + ${first.requestWei} requested exceeds ${first.cap} ${first.capWei}`;
}

/** The value the ledger's totals record within a scope (its workflows, and its relayers when listed), in wei. */
export function scopeValue(combos: readonly ComboTotals[], scope: { readonly workflows: readonly string[]; readonly relayers?: readonly string[] }): bigint {
  let sum = 0n;
  for (const c of combos) {
    if (scope.workflows.includes(c.workflow) && (scope.relayers === undefined || scope.relayers.includes(c.relayer))) sum += c.valueWei;
  }
  return sum;
}
