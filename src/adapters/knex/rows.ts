import type { Approval } from '../../domain/approval';
import type { ReorgResponseRecord } from '../../domain/reorg';
import type { Run } from '../../domain/run';
import type { SendAttempt } from '../../domain/send-attempt';
import { DurationHistogram } from '../../domain/duration-histogram';
import type { ReplaySession, WorkflowStateRecord, WorkflowStats } from '../../domain/session';

/** Maps projection rows to domain records and back. Integers may come back as strings (PostgreSQL bigint). */
type Row = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export const RUN_COLUMNS = [
  'run_id', 'workflow', 'status', 'trigger_kind', 'session', 'session_id', 'network', 'contract', 'block', 'relayers',
  'tx_hashes', 'step_ids', 'error_kind', 'approval_status', 'wait_kind', 'parked_at', 'wait_step_run_id', 'due_at',
  'expires_at', 'replay_of', 'created_at', 'finished_at', 'duration_ms',
] as const;

export function runToRow(r: Run): unknown[] {
  return [
    r.runId, r.workflow, r.status, r.triggerKind, r.session, r.sessionId, r.network, r.contract, r.block,
    JSON.stringify(r.relayers), JSON.stringify(r.txHashes), JSON.stringify(r.stepIds), r.errorKind, r.approvalStatus,
    r.waitKind, r.parkedAt, r.waitStepRunId, r.dueAt, r.expiresAt, r.replayOf, r.createdAt, r.finishedAt, r.durationMs,
  ];
}

export function rowToRun(row: Row): Run {
  return {
    runId: String(row.run_id),
    workflow: String(row.workflow),
    status: row.status as Run['status'],
    triggerKind: String(row.trigger_kind),
    session: row.session as Run['session'],
    sessionId: str(row.session_id),
    network: str(row.network),
    contract: str(row.contract),
    block: numOrNull(row.block),
    relayers: json<string[]>(row.relayers),
    txHashes: json<string[]>(row.tx_hashes),
    stepIds: json<string[]>(row.step_ids),
    errorKind: str(row.error_kind),
    approvalStatus: str(row.approval_status) as Run['approvalStatus'],
    waitKind: str(row.wait_kind) as Run['waitKind'],
    parkedAt: numOrNull(row.parked_at),
    waitStepRunId: str(row.wait_step_run_id),
    dueAt: numOrNull(row.due_at),
    expiresAt: numOrNull(row.expires_at),
    replayOf: str(row.replay_of),
    createdAt: num(row.created_at),
    finishedAt: numOrNull(row.finished_at),
    durationMs: numOrNull(row.duration_ms),
  };
}

export const SEND_COLUMNS = [
  'send_id', 'run_id', 'step_run_id', 'workflow', 'session', 'network', 'chain_id', 'relayer', 'status', 'outcome',
  'tx_hash', 'idempotency_key', 'to_address', 'value_wei', 'receipt', 'created_at', 'updated_at', 'token_transfer',
] as const;

export function sendToRow(s: SendAttempt): unknown[] {
  return [
    s.sendId, s.runId, s.stepRunId, s.workflow, s.session, s.network, s.chainId, s.relayer, s.status, s.outcome,
    s.txHash, s.idempotencyKey, s.to, s.valueWei.toString(), s.receipt ? JSON.stringify(s.receipt) : null,
    s.createdAt, s.updatedAt,
    s.tokenTransfer ? JSON.stringify({ contract: s.tokenTransfer.contract, to: s.tokenTransfer.to, amount: s.tokenTransfer.amount.toString() }) : null,
  ];
}

export function rowToSend(row: Row): SendAttempt {
  return {
    sendId: String(row.send_id),
    runId: String(row.run_id),
    stepRunId: String(row.step_run_id),
    workflow: String(row.workflow),
    session: row.session as SendAttempt['session'],
    network: String(row.network),
    chainId: num(row.chain_id),
    relayer: String(row.relayer),
    status: row.status as SendAttempt['status'],
    outcome: str(row.outcome) as SendAttempt['outcome'],
    txHash: str(row.tx_hash),
    idempotencyKey: String(row.idempotency_key),
    to: String(row.to_address),
    valueWei: BigInt(String(row.value_wei)),
    receipt: row.receipt ? json<SendAttempt['receipt']>(row.receipt) : null,
    tokenTransfer: tokenTransferOfRow(row.token_transfer),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

/** A send's `token_transfer` column (JSON text, amount a decimal string; NULL for other sends). */
function tokenTransferOfRow(value: unknown): SendAttempt['tokenTransfer'] {
  if (value === null || value === undefined || value === '') return null;
  const t = json<{ contract: string; to: string; amount: string }>(value);
  return { contract: t.contract, to: t.to, amount: BigInt(t.amount) };
}

export const APPROVAL_COLUMNS = [
  'approval_id', 'run_id', 'step_run_id', 'workflow', 'status', 'message', 'requested_at', 'expires_at', 'decided_at',
  'decided_by', 'reason',
] as const;

export function approvalToRow(a: Approval): unknown[] {
  return [a.approvalId, a.runId, a.stepRunId, a.workflow, a.status, a.message, a.requestedAt, a.expiresAt, a.decidedAt, a.decidedBy, a.reason];
}

export function rowToApproval(row: Row): Approval {
  return {
    approvalId: String(row.approval_id),
    runId: String(row.run_id),
    stepRunId: String(row.step_run_id),
    workflow: String(row.workflow),
    status: row.status as Approval['status'],
    message: str(row.message),
    requestedAt: num(row.requested_at),
    expiresAt: numOrNull(row.expires_at),
    decidedAt: numOrNull(row.decided_at),
    decidedBy: str(row.decided_by),
    reason: str(row.reason),
  };
}

export const REORG_COLUMNS = ['reorg_id', 'run_id', 'workflow', 'network', 'block', 'removed_block_hash', 'depth', 'created_at', 'steps'] as const;

export function reorgToRow(r: ReorgResponseRecord): unknown[] {
  return [r.reorgId, r.runId, r.workflow, r.network, r.block, r.removedBlockHash, r.depth, r.createdAt, JSON.stringify(r.steps)];
}

export function rowToReorg(row: Row): ReorgResponseRecord {
  return {
    reorgId: String(row.reorg_id),
    runId: String(row.run_id),
    workflow: String(row.workflow),
    network: String(row.network),
    block: num(row.block),
    removedBlockHash: str(row.removed_block_hash),
    depth: numOrNull(row.depth),
    createdAt: num(row.created_at),
    steps: json<ReorgResponseRecord['steps']>(row.steps),
  };
}

export const SESSION_COLUMNS = ['session_id', 'kind', 'workflow', 'created_at', 'finished_at', 'run_count', 'from_block', 'to_block', 'note'] as const;

export function sessionToRow(s: ReplaySession): unknown[] {
  return [s.sessionId, s.kind, s.workflow, s.createdAt, s.finishedAt, s.runCount, s.fromBlock, s.toBlock, s.note];
}

export function rowToSession(row: Row): ReplaySession {
  return {
    sessionId: String(row.session_id),
    kind: row.kind as ReplaySession['kind'],
    workflow: String(row.workflow),
    createdAt: num(row.created_at),
    finishedAt: numOrNull(row.finished_at),
    runCount: num(row.run_count),
    fromBlock: numOrNull(row.from_block),
    toBlock: numOrNull(row.to_block),
    note: str(row.note),
  };
}

export const WORKFLOW_COLUMNS = ['workflow', 'paused', 'trigger', 'network', 'cursor_block', 'head_block', 'updated_at'] as const;

export function workflowToRow(w: WorkflowStateRecord): unknown[] {
  return [w.workflow, w.paused, w.trigger, w.network, w.cursorBlock, w.headBlock, w.updatedAt];
}

export function rowToWorkflow(row: Row): WorkflowStateRecord {
  return {
    workflow: String(row.workflow),
    paused: row.paused === null || row.paused === undefined ? null : Boolean(Number(row.paused)),
    trigger: str(row.trigger),
    network: str(row.network),
    cursorBlock: numOrNull(row.cursor_block),
    headBlock: numOrNull(row.head_block),
    updatedAt: num(row.updated_at),
  };
}

export const WORKFLOW_STATS_COLUMNS = [
  'workflow', 'last_run_at', 'last_success_at', 'last_failure_at', 'success_count', 'failure_count', 'tx_count',
  'recent_error_kind', 'recent_error_at', 'durations',
] as const;

export function workflowStatsToRow(w: WorkflowStats): unknown[] {
  return [
    w.workflow, w.lastRunAt, w.lastSuccessAt, w.lastFailureAt, w.successCount, w.failureCount, w.txCount,
    w.recentErrorKind, w.recentErrorAt, w.durations.toJson(),
  ];
}

/**
 * Remembers the last histogram read per workflow, by its stored text: a workflow's histogram is a few hundred
 * buckets of JSON whose parse and sort cost more than the rest of the overview, and it only changes when one of
 * its runs finishes. Keyed by the text itself, a hit is exactly what a fresh parse would give, whoever wrote it.
 * The kept histogram is shared, so it refuses `add` (callers only read quantiles); its quantiles are kept too.
 */
export class HistogramCache {
  private readonly last = new Map<string, { text: string; histogram: DurationHistogram }>();

  constructor(private readonly max = 4096) {}

  of(workflow: string, text: string): DurationHistogram {
    const hit = this.last.get(workflow);
    if (hit && hit.text === text) return hit.histogram;
    const histogram = sharedHistogram(DurationHistogram.fromJson(text));
    if (this.last.size >= this.max) this.last.clear();
    this.last.set(workflow, { text, histogram });
    return histogram;
  }
}

function sharedHistogram(source: DurationHistogram): DurationHistogram {
  const quantiles = new Map<number, number | null>();
  const shared = Object.create(source) as DurationHistogram;
  Object.defineProperties(shared, {
    quantile: {
      value: (q: number): number | null => {
        if (!quantiles.has(q)) quantiles.set(q, source.quantile(q));
        return quantiles.get(q)!;
      },
    },
    add: {
      value: (): never => {
        throw new Error('a histogram read for the workflows overview is shared: copy it (plus) before adding to it');
      },
    },
  });
  return shared;
}

export function rowToWorkflowStats(row: Row, histograms?: HistogramCache): WorkflowStats {
  return {
    workflow: String(row.workflow),
    lastRunAt: numOrNull(row.last_run_at),
    lastSuccessAt: numOrNull(row.last_success_at),
    lastFailureAt: numOrNull(row.last_failure_at),
    successCount: num(row.success_count),
    failureCount: num(row.failure_count),
    txCount: num(row.tx_count),
    recentErrorKind: str(row.recent_error_kind),
    recentErrorAt: numOrNull(row.recent_error_at),
    durations: histograms ? histograms.of(String(row.workflow), String(row.durations)) : DurationHistogram.fromJson(String(row.durations)),
  };
}

/**
 * On SQLite a page is read as one JSON array per row (`packedColumns`) and unpacked here: the driver builds
 * one string per row instead of an object of 20-odd properties, which is most of a page's cost.
 */
export function packedColumns(alias: string, columns: readonly string[]): string {
  return `${packedValues(alias, columns)} AS packed`;
}

/**
 * The JSON array of a row's `columns` (JSON text columns as JSON values), as SQL. A JSON text column is spliced in
 * as it is stored (chainflow writes it with JSON.stringify), between `json_array`s of the scalar columns with their
 * brackets trimmed: `json(column)` parsed and rendered every value again, a fifth of a runs page's time in SQLite.
 * Trimming one bracket is exact: a JSON scalar starts with `"`, a digit, `-` or a letter and ends with `"`, a digit
 * or a letter.
 */
export function packedValues(alias: string, columns: readonly string[]): string {
  if (!columns.some((c) => JSON_TEXT_COLUMNS.has(c))) return `json_array(${columns.map((c) => `${alias}."${c}"`).join(', ')})`;
  const parts: string[] = [];
  let scalars: string[] = [];
  const flush = (): void => {
    if (scalars.length) parts.push(`rtrim(ltrim(json_array(${scalars.join(', ')}), '['), ']')`);
    scalars = [];
  };
  for (const c of columns) {
    if (!JSON_TEXT_COLUMNS.has(c)) {
      scalars.push(`${alias}."${c}"`);
      continue;
    }
    flush();
    parts.push(`coalesce(${alias}."${c}", 'null')`);
  }
  flush();
  return `('[' || ${parts.join(` || ',' || `)} || ']')`;
}

/** A row from the values of a packed row (see packedValues), in `columns` order. */
export function rowOfValues(values: readonly unknown[], columns: readonly string[]): Row {
  return unpackerOf(columns)(values as unknown[]);
}

/** Columns that hold JSON text: packed rows carry them as JSON values, not as strings to parse again. */
const JSON_TEXT_COLUMNS: ReadonlySet<string> = new Set(['relayers', 'tx_hashes', 'step_ids', 'receipt', 'steps', 'token_transfer']);

export function unpackRow(row: Row, columns: readonly string[]): Row {
  if (typeof row.packed !== 'string') return row;
  return unpackerOf(columns)(JSON.parse(row.packed) as unknown[]);
}

/** A row from its packed values (already parsed), by `columns`. */
export function unpackValues(values: unknown[], columns: readonly string[]): Row {
  return unpackerOf(columns)(values);
}

const unpackers = new WeakMap<readonly string[], (values: unknown[]) => Row>();

/**
 * An object literal per column list, compiled once: an object filled key by key under computed names turns into a
 * slow dictionary after a dozen properties, and building it cost more than parsing the row (see docs/benchmarks.md).
 */
function unpackerOf(columns: readonly string[]): (values: unknown[]) => Row {
  let unpack = unpackers.get(columns);
  if (!unpack) {
    if (!columns.every((c) => /^[a-z_][a-z0-9_]*$/.test(c))) throw new Error(`unpackRow: not a column name in ${columns.join(', ')}`);
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    unpack = new Function('v', `return { ${columns.map((c, i) => `${c}: v[${i}]`).join(', ')} };`) as (values: unknown[]) => Row;
    unpackers.set(columns, unpack);
  }
  return unpack;
}

/** A JSON column's value: already parsed (packed rows) or JSON text (plain rows). */
function json<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}
