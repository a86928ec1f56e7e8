import type { Approval } from '../../domain/approval';
import type { ReorgResponseRecord } from '../../domain/reorg';
import type { Run } from '../../domain/run';
import type { SendAttempt } from '../../domain/send-attempt';
import type { ReplaySession } from '../../domain/session';
import { toIso } from '../../domain/time';

/**
 * The shapes every surface renders (CONTRACT section 4): the API returns them, the CLI prints them with
 * --json, the UI reads them. snake_case, amounts as decimal strings of wei, times RFC 3339 UTC.
 */
export interface RunItem {
  run_id: string;
  workflow: string;
  status: string;
  trigger: string;
  session: string;
  session_id: string | null;
  network: string | null;
  contract: string | null;
  relayers: string[];
  tx_hashes: string[];
  block: number | null;
  step_ids: string[];
  error_kind: string | null;
  approval_status: string | null;
  wait_kind: string | null;
  replay_of: string | null;
  created_at: string;
  finished_at: string | null;
  duration_ms: number | null;
}

export function toRunItem(run: Run): RunItem {
  return {
    run_id: run.runId,
    workflow: run.workflow,
    status: run.status,
    trigger: run.triggerKind,
    session: run.session,
    session_id: run.sessionId,
    network: run.network,
    contract: run.contract,
    relayers: [...run.relayers],
    tx_hashes: [...run.txHashes],
    block: run.block,
    step_ids: [...run.stepIds],
    error_kind: run.errorKind,
    approval_status: run.approvalStatus,
    wait_kind: run.waitKind,
    replay_of: run.replayOf,
    created_at: toIso(run.createdAt),
    finished_at: toIso(run.finishedAt),
    duration_ms: run.durationMs,
  };
}

export interface SendAttemptItem {
  send_id: string;
  run_id: string;
  step_run_id: string;
  workflow: string;
  session: string;
  network: string;
  chain_id: number;
  relayer: string;
  status: string;
  outcome: string | null;
  tx_hash: string | null;
  idempotency_key: string;
  explorer_url: string | null;
  to: string;
  value_wei: string;
  /** For a token transfer call: the token contract, the recipient, the amount in the token's base units. */
  token_transfer: { contract: string; to: string; amount: string } | null;
  created_at: string;
  updated_at: string;
}

/** `explorerTxUrl` resolves a transaction link for a network, or null where no explorer is known. */
export function toSendAttemptItem(
  send: SendAttempt,
  explorerTxUrl: (network: string, chainId: number, txHash: string) => string | null,
): SendAttemptItem {
  return {
    send_id: send.sendId,
    run_id: send.runId,
    step_run_id: send.stepRunId,
    workflow: send.workflow,
    session: send.session,
    network: send.network,
    chain_id: send.chainId,
    relayer: send.relayer,
    status: send.status,
    outcome: send.outcome,
    tx_hash: send.txHash,
    idempotency_key: send.idempotencyKey,
    explorer_url: send.txHash ? explorerTxUrl(send.network, send.chainId, send.txHash) : null,
    to: send.to,
    value_wei: send.valueWei.toString(),
    token_transfer: send.tokenTransfer
      ? { contract: send.tokenTransfer.contract, to: send.tokenTransfer.to, amount: send.tokenTransfer.amount.toString() }
      : null,
    created_at: toIso(send.createdAt),
    updated_at: toIso(send.updatedAt),
  };
}

export interface ApprovalItem {
  approval_id: string;
  run_id: string;
  step_run_id: string;
  workflow: string;
  status: string;
  message: string | null;
  requested_at: string;
  expires_at: string | null;
  decided_at: string | null;
  decided_by: string | null;
  reason: string | null;
}

export function toApprovalItem(a: Approval): ApprovalItem {
  return {
    approval_id: a.approvalId,
    run_id: a.runId,
    step_run_id: a.stepRunId,
    workflow: a.workflow,
    status: a.status,
    message: a.message,
    requested_at: toIso(a.requestedAt),
    expires_at: toIso(a.expiresAt),
    decided_at: toIso(a.decidedAt),
    decided_by: a.decidedBy,
    reason: a.reason,
  };
}

export interface ReorgResponseItem {
  reorg_id: string;
  run_id: string;
  workflow: string;
  network: string;
  block: number;
  removed_block_hash: string | null;
  depth: number | null;
  created_at: string;
  steps: { step_id: string; status: string; output: unknown; error: unknown; at: string }[];
  /** The explorer's page of the block now at `block` (the new canonical one); null where the network has no known explorer. */
  block_url: string | null;
  /** The explorer's page of the removed block, by its hash; null where the hash or an explorer is unknown. */
  removed_block_url: string | null;
}

/** `blockUrls`: explorer links to the reorg's two blocks (see reorgBlockUrls). */
export function toReorgItem(
  r: ReorgResponseRecord,
  blockUrls: (r: ReorgResponseRecord) => { block_url: string | null; removed_block_url: string | null },
): ReorgResponseItem {
  return {
    reorg_id: r.reorgId,
    run_id: r.runId,
    workflow: r.workflow,
    network: r.network,
    block: r.block,
    removed_block_hash: r.removedBlockHash,
    depth: r.depth,
    ...blockUrls(r),
    created_at: toIso(r.createdAt),
    steps: r.steps.map((s) => ({ step_id: s.stepId, status: s.status, output: s.output, error: s.error, at: toIso(s.at) })),
  };
}

/** The list envelope shared by every history list (SPEC, Conventions). */
export interface ListEnvelope<T> {
  items: T[];
  cursor: string | null;
  has_more: boolean;
}

export interface WaitingItem {
  run_id: string;
  workflow: string;
  wait_kind: string | null;
  step_run_id: string | null;
  parked_at: string | null;
  due_at: string | null;
  expires_at: string | null;
}

export function toWaitingItem(run: Run): WaitingItem {
  return {
    run_id: run.runId,
    workflow: run.workflow,
    wait_kind: run.waitKind,
    step_run_id: run.waitStepRunId,
    parked_at: toIso(run.parkedAt),
    due_at: toIso(run.dueAt),
    expires_at: toIso(run.expiresAt),
  };
}

export interface ReplaySessionItem {
  session_id: string;
  kind: string;
  workflow: string;
  created_at: string;
  finished_at: string | null;
  run_count: number;
  from_block: number | null;
  to_block: number | null;
}

export function toReplaySessionItem(s: ReplaySession): ReplaySessionItem {
  return {
    session_id: s.sessionId,
    kind: s.kind,
    workflow: s.workflow,
    created_at: toIso(s.createdAt),
    finished_at: toIso(s.finishedAt),
    run_count: s.runCount,
    from_block: s.fromBlock,
    to_block: s.toBlock,
  };
}

/**
 * The keys of the flat items the storage renders as text (runs, txs, approvals, waiting, replays: strings, numbers,
 * null and arrays of strings, no object inside): what their pages tell Redactor.itemsRedaction the items hold. A test
 * holds each list to the keys its `to…Item` makes.
 */
export const RUN_ITEM_KEYS = [
  'run_id', 'workflow', 'status', 'trigger', 'session', 'session_id', 'network', 'contract', 'relayers', 'tx_hashes',
  'block', 'step_ids', 'error_kind', 'approval_status', 'wait_kind', 'replay_of', 'created_at', 'finished_at', 'duration_ms',
] as const satisfies ReadonlyArray<keyof RunItem>;
export const SEND_ITEM_KEYS = [
  'send_id', 'run_id', 'step_run_id', 'workflow', 'session', 'network', 'chain_id', 'relayer', 'status', 'outcome',
  'tx_hash', 'idempotency_key', 'explorer_url', 'to', 'value_wei', 'token_transfer', 'created_at', 'updated_at',
] as const satisfies ReadonlyArray<keyof SendAttemptItem>;
export const APPROVAL_ITEM_KEYS = [
  'approval_id', 'run_id', 'step_run_id', 'workflow', 'status', 'message', 'requested_at', 'expires_at', 'decided_at',
  'decided_by', 'reason',
] as const satisfies ReadonlyArray<keyof ApprovalItem>;
export const REPLAY_ITEM_KEYS = [
  'session_id', 'kind', 'workflow', 'created_at', 'finished_at', 'run_count', 'from_block', 'to_block',
] as const satisfies ReadonlyArray<keyof ReplaySessionItem>;
export const WAITING_ITEM_KEYS = [
  'run_id', 'workflow', 'wait_kind', 'step_run_id', 'parked_at', 'due_at', 'expires_at',
] as const satisfies ReadonlyArray<keyof WaitingItem>;
