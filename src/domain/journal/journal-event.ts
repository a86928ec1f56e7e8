/**
 * The journal's events (CONTRACT section 3). Every event has `type` and `at` (RFC 3339, UTC).
 * Amounts stay decimal strings here, exactly as journaled; they become bigint where they are summed.
 */
export interface ErrorInfo {
  readonly kind: string;
  readonly message?: string;
}

export interface Receipt {
  readonly gasUsed?: string;
  readonly effectiveGasPrice?: string;
  readonly gasPrice?: string;
  readonly l1Fee?: string;
  readonly status?: string | number | boolean;
  readonly blockNumber?: string | number;
  /** Extension: the hash of the receipt's block (0x-hex), so that a reorg that removes the block finds the send. */
  readonly blockHash?: string;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Base<T extends string> {
  readonly type: T;
  readonly at: string;
}

export type SessionKind = 'live' | 'replay' | 'test';
export type WaitKind = 'tx' | 'delay' | 'event' | 'approval';
export type StepStatus = 'succeeded' | 'failed' | 'skipped';
export type SendOutcome = 'confirmed' | 'reverted' | 'dropped' | 'expired' | 'replaced';
export type Decision = 'approved' | 'rejected' | 'expired';
export type RunEndStatus = 'succeeded' | 'failed' | 'dead_lettered' | 'cancelled' | 'skipped';

/** What started a run; an event run keeps its log's block, transaction and place beside the payload (CONTRACT 8.6). */
export interface RunTrigger {
  readonly kind: string;
  readonly summary?: string;
  readonly payload?: Json;
  /** `timestamp`: the block's time, unix seconds, as the chain gives it. */
  readonly block?: { readonly number: number; readonly hash: string; readonly timestamp?: number };
  readonly tx_hash?: string;
  readonly log?: { readonly address: string; readonly log_index: number };
}

export interface RunStarted extends Base<'run.started'> {
  readonly run_id: string;
  readonly workflow: string;
  readonly session: SessionKind;
  readonly session_id?: string;
  readonly trigger: RunTrigger;
  readonly network?: string;
  readonly contract?: string;
  readonly block?: number;
  readonly replay_of?: string;
}
export interface RunConditions extends Base<'run.conditions'> {
  readonly run_id: string;
  readonly results: readonly { readonly name: string; readonly passed: boolean; readonly detail?: Json }[];
}
export interface StepStarted extends Base<'step.started'> {
  readonly run_id: string;
  readonly step_run_id: string;
  readonly step_id: string;
  readonly step_type: string;
  readonly attempt: number;
  readonly input?: Json;
}
export interface StepSimulated extends Base<'step.simulated'> {
  readonly run_id: string;
  readonly step_run_id: string;
  readonly ok: boolean;
  readonly gas_estimate?: string;
  readonly revert_reason?: string;
}
export interface BudgetChecked extends Base<'budget.checked'> {
  readonly run_id: string;
  readonly step_run_id: string;
  readonly budget: string;
  readonly spent_wei: string;
  readonly cap_wei: string;
  readonly allowed: boolean;
  /** Which cap (extension): max_gas_spend when absent. */
  readonly cap?: 'max_gas_spend' | 'max_native_value' | 'max_token_value';
  /** What the send asked for under a reservation cap (extension). */
  readonly request_wei?: string;
  /** Token contract of a max_token_value check (extension). */
  readonly token?: string;
}
export interface StepFinished extends Base<'step.finished'> {
  readonly run_id: string;
  readonly step_run_id: string;
  readonly status: StepStatus;
  readonly output?: Json;
  readonly error?: ErrorInfo;
}
export interface SendQueued extends Base<'send.queued'> {
  readonly run_id: string;
  readonly step_run_id: string;
  readonly send_id: string;
  readonly network: string;
  readonly chain_id: number;
  readonly relayer: string;
  readonly to: string;
  readonly value_wei: string;
  readonly idempotency_key: string;
  /** For a token transfer call (CONTRACT 8.8): the token contract, the recipient, the amount in base units (decimal). */
  readonly token_transfer?: { readonly contract: string; readonly to: string; readonly amount: string };
}
export interface SendParked extends Base<'send.parked'> {
  readonly send_id: string;
  readonly reason?: string;
}
export interface SendSubmitted extends Base<'send.submitted'> {
  readonly send_id: string;
  readonly tx_hash: string;
  readonly nonce?: number;
  /** Extension: a later transaction of the same send at the same nonce (fees raised, or the zero-value cancel). */
  readonly replacement?: 'fee_bump' | 'cancel';
  /**
   * Extension (CONTRACT 8.6, sends under a reorg): the send had settled, and a reorg removed the block of its receipt.
   * The send is back to awaiting `tx_hash` (status `submitted`, no outcome) and its ledger entry no longer counts.
   */
  readonly reorged?: { readonly block: number; readonly removed_block_hash: string };
}
export interface SendSettled extends Base<'send.settled'> {
  readonly send_id: string;
  readonly outcome: SendOutcome;
  readonly tx_hash?: string;
  readonly receipt?: Receipt;
}
export interface ApprovalRequested extends Base<'approval.requested'> {
  readonly approval_id: string;
  readonly run_id: string;
  readonly step_run_id: string;
  readonly message?: string;
  readonly expires_at?: string;
}
export interface ApprovalDecided extends Base<'approval.decided'> {
  readonly approval_id: string;
  readonly decision: Decision;
  readonly by?: string;
  readonly reason?: string;
}
export interface RunParked extends Base<'run.parked'> {
  readonly run_id: string;
  readonly wait_kind: WaitKind;
  readonly step_run_id?: string;
  readonly due_at?: string;
  readonly expires_at?: string;
}
export interface RunResumed extends Base<'run.resumed'> {
  readonly run_id: string;
}
export interface RunFinished extends Base<'run.finished'> {
  readonly run_id: string;
  readonly status: RunEndStatus;
  readonly error?: ErrorInfo;
}
export interface ReorgResponse extends Base<'reorg.response'> {
  readonly reorg_id: string;
  readonly run_id: string;
  readonly workflow: string;
  readonly network: string;
  readonly block: number;
  readonly removed_block_hash?: string;
  /** Blocks the reorg removed. */
  readonly depth?: number;
}
export interface ReorgStep extends Base<'reorg.step'> {
  readonly reorg_id: string;
  readonly step_id: string;
  readonly status: string;
  readonly output?: Json;
  readonly error?: ErrorInfo;
}
export interface SessionStarted extends Base<'session.started'> {
  readonly session_id: string;
  readonly kind: 'replay' | 'test';
  readonly workflow: string;
  readonly from_block?: number;
  readonly to_block?: number;
  readonly note?: string;
}
export interface SessionFinished extends Base<'session.finished'> {
  readonly session_id: string;
}
export interface WorkflowState extends Base<'workflow.state'> {
  readonly workflow: string;
  readonly paused?: boolean;
  readonly trigger?: string;
  readonly network?: string;
  readonly cursor_block?: number;
  readonly head_block?: number;
}

export type JournalEvent =
  | RunStarted
  | RunConditions
  | StepStarted
  | StepSimulated
  | BudgetChecked
  | StepFinished
  | SendQueued
  | SendParked
  | SendSubmitted
  | SendSettled
  | ApprovalRequested
  | ApprovalDecided
  | RunParked
  | RunResumed
  | RunFinished
  | ReorgResponse
  | ReorgStep
  | SessionStarted
  | SessionFinished
  | WorkflowState;

export type JournalEventType = JournalEvent['type'];

export const JOURNAL_EVENT_TYPES: readonly JournalEventType[] = [
  'run.started', 'run.conditions', 'step.started', 'step.simulated', 'budget.checked', 'step.finished',
  'send.queued', 'send.parked', 'send.submitted', 'send.settled', 'approval.requested', 'approval.decided',
  'run.parked', 'run.resumed', 'run.finished', 'reorg.response', 'reorg.step', 'session.started',
  'session.finished', 'workflow.state',
];
