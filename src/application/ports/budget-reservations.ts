/** What the value caps reserve beside the ledger: native value of sends in flight, token grants. */
export interface BudgetReservations {
  /** Native value of the sends not yet settled of these workflows (and relayers; undefined: all), in wei. */
  valueInFlight(workflows: readonly string[], relayers: readonly string[] | undefined): Promise<bigint>;
  /** Token amounts granted under a budget for a token contract since `since` (epoch ms). */
  tokenGranted(budget: string, token: string, since: number): Promise<bigint>;
  /** Records a token grant (the reservation of an allowed token send). */
  grantToken(grant: { budget: string; token: string; stepRunId: string; amount: bigint; at: number }): Promise<void>;
}
export const BudgetReservations = Symbol('BudgetReservations');
