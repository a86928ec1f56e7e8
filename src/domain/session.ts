/** An isolated backtest (replay) or dry-run (test) session. */
export interface ReplaySession {
  readonly sessionId: string;
  readonly kind: 'replay' | 'test';
  readonly workflow: string;
  readonly createdAt: number;
  finishedAt: number | null;
  runCount: number;
  readonly fromBlock: number | null;
  readonly toBlock: number | null;
  readonly note: string | null;
}

/** The engine's last word on a workflow's trigger state. */
export interface WorkflowStateRecord {
  readonly workflow: string;
  paused: boolean;
  trigger: string | null;
  network: string | null;
  cursorBlock: number | null;
  headBlock: number | null;
  updatedAt: number;
}
