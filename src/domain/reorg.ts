import type { ErrorInfo, Json } from './journal/journal-event';

export interface ReorgStepRecord {
  readonly stepId: string;
  readonly status: string;
  readonly output: Json | null;
  readonly error: ErrorInfo | null;
  readonly at: number;
}

/** A durable on_reorg response, journaled against the run the reorg affected. */
export interface ReorgResponseRecord {
  readonly reorgId: string;
  readonly runId: string;
  readonly workflow: string;
  readonly network: string;
  readonly block: number;
  readonly removedBlockHash: string | null;
  /** Blocks the reorg removed; null when the journal did not say (an imported response without it). */
  readonly depth: number | null;
  readonly createdAt: number;
  steps: ReorgStepRecord[];
}
