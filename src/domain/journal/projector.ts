import { JournalRejectedError } from '../errors';
import { DurationHistogram } from '../duration-histogram';
import { addOnce, TERMINAL_RUN_STATUSES, type Run } from '../run';
import type { WorkflowStats } from '../session';
import { landedSettle } from '../spend/ledger-entry';
import { parseRfc3339 } from '../time';
import { canonicalJson, eventHash } from './canonical';
import type { JournalEvent } from './journal-event';
import { ChangeSet, type WorkingSet } from './working-set';

/** Ids an append refers to, so that a storage adapter can load its working set in a few queries. */
export interface References {
  readonly runIds: Set<string>;
  readonly sendIds: Set<string>;
  readonly approvalIds: Set<string>;
  readonly reorgIds: Set<string>;
  readonly sessionIds: Set<string>;
  readonly workflows: Set<string>;
}

export function references(events: readonly JournalEvent[]): References {
  const r: References = {
    runIds: new Set(), sendIds: new Set(), approvalIds: new Set(), reorgIds: new Set(),
    sessionIds: new Set(), workflows: new Set(),
  };
  for (const e of events) {
    if ('run_id' in e) r.runIds.add(e.run_id);
    if ('send_id' in e) r.sendIds.add(e.send_id);
    if ('approval_id' in e) r.approvalIds.add(e.approval_id);
    if ('reorg_id' in e) r.reorgIds.add(e.reorg_id);
    if ('session_id' in e && e.session_id) r.sessionIds.add(e.session_id);
    if (e.type === 'workflow.state') r.workflows.add(e.workflow);
  }
  return r;
}

/**
 * Workflows whose overview statistics an append may change: those of the runs it starts and of every run
 * already loaded into the working set. A storage adapter loads their stats before applying the events.
 */
export function statsWorkflows(ws: WorkingSet, events: readonly JournalEvent[]): Set<string> {
  const out = new Set<string>();
  for (const e of events) if (e.type === 'run.started') out.add(e.workflow);
  for (const run of ws.runs.values()) out.add(run.workflow);
  return out;
}

const ms = (iso: string): number => parseRfc3339(iso) as number;
const msOrNull = (iso: string | undefined): number | null => (iso === undefined ? null : ms(iso));

/**
 * Folds journal events into the projections the query layer reads (runs, send attempts, approvals, reorg
 * responses, sessions, workflow states). Pure: the same events over the same working set give the same
 * rows, whatever the storage. An event already stored (same stream, same content) is skipped, so applying
 * a journal twice leaves the same state.
 */
export function applyEvents(ws: WorkingSet, events: readonly JournalEvent[], offset = 0, hashes?: readonly string[]): ChangeSet {
  const changes = new ChangeSet();
  events.forEach((event, i) => applyOne(ws, changes, event, offset + i, hashes?.[i]));
  return changes;
}

/** The identity of each event's content (see `applyEvents`); may be computed ahead, off the write path. */
export function contentHashes(events: readonly JournalEvent[]): string[] {
  return events.map((e) => eventHash(canonicalJson(e)));
}

function applyOne(ws: WorkingSet, ch: ChangeSet, e: JournalEvent, index: number, precomputed: string | undefined): void {
  const reject = (reason: string): never => {
    throw new JournalRejectedError(index, reason);
  };
  const runOf = (runId: string): Run => ws.runs.get(runId) ?? reject('run_id: unknown run (no run.started before it)');
  const stream = streamOf(ws, e, reject);
  const hash = precomputed ?? eventHash(canonicalJson(e));
  const key = `${stream}\n${hash}`;
  if (ws.eventKeys.has(key)) {
    ch.duplicates++;
    return;
  }
  const at = ms(e.at);
  const touch = (run: Run): void => void ch.runs.add(run.runId);

  switch (e.type) {
    case 'run.started': {
      if (ws.runs.has(e.run_id)) reject('run_id: this run already started (a run.started with other content)');
      const run: Run = {
        runId: e.run_id, workflow: e.workflow, status: 'running', triggerKind: e.trigger.kind, session: e.session,
        sessionId: e.session_id ?? null, network: e.network ?? null, contract: e.contract ?? null,
        block: e.block ?? null, relayers: [], txHashes: [], stepIds: [], errorKind: null, approvalStatus: null,
        waitKind: null, parkedAt: null, waitStepRunId: null, dueAt: null, expiresAt: null,
        replayOf: e.replay_of ?? null, createdAt: at, finishedAt: null, durationMs: null,
      };
      ws.runs.set(run.runId, run);
      touch(run);
      ch.runLists.add(run.runId);
      const stats = statsOf(ws, ch, run.workflow);
      stats.lastRunAt = Math.max(stats.lastRunAt ?? at, at);
      if (e.session_id) countSessionRun(ws, ch, e.session_id, run, at);
      break;
    }
    case 'run.conditions':
    case 'step.simulated':
    case 'budget.checked':
      runOf(e.run_id);
      break;
    case 'step.started': {
      const run = runOf(e.run_id);
      if (addOnce(run.stepIds, e.step_id)) ch.runLists.add(run.runId);
      touch(run);
      break;
    }
    case 'step.finished': {
      const run = runOf(e.run_id);
      if (e.status === 'failed' && e.error) {
        run.errorKind = e.error.kind;
        touch(run);
      }
      break;
    }
    case 'send.queued': {
      const run = runOf(e.run_id);
      if (ws.sends.has(e.send_id)) reject('send_id: this send is already queued (a send.queued with other content)');
      ws.sends.set(e.send_id, {
        sendId: e.send_id, runId: e.run_id, stepRunId: e.step_run_id, workflow: run.workflow, session: run.session,
        network: e.network, chainId: e.chain_id, relayer: e.relayer, status: 'queued', outcome: null, txHash: null,
        idempotencyKey: e.idempotency_key, to: e.to, valueWei: BigInt(e.value_wei), receipt: null,
        createdAt: at, updatedAt: at,
      });
      ch.sends.add(e.send_id);
      if (addOnce(run.relayers, e.relayer)) ch.runLists.add(run.runId);
      if (run.network === null) run.network = e.network;
      touch(run);
      break;
    }
    case 'send.parked':
    case 'send.submitted':
    case 'send.settled': {
      const send = ws.sends.get(e.send_id)!;
      const hadTx = send.txHash !== null;
      send.updatedAt = Math.max(send.updatedAt, at);
      if (e.type === 'send.parked') {
        if (send.status !== 'settled') send.status = 'parked';
      } else if (e.type === 'send.submitted') {
        if (send.status !== 'settled') send.status = 'submitted';
        send.txHash = e.tx_hash;
      } else {
        send.status = 'settled';
        send.outcome = e.outcome;
        if (e.tx_hash) send.txHash = e.tx_hash;
        if (e.receipt) send.receipt = e.receipt;
        const landed = landedSettle(send, send.receipt, at);
        if (landed) ch.ledger.push(landed);
      }
      ch.sends.add(send.sendId);
      const run = runOf(send.runId);
      if (!hadTx && send.txHash) statsOf(ws, ch, send.workflow).txCount++;
      if (send.txHash && addOnce(run.txHashes, send.txHash)) {
        ch.runLists.add(run.runId);
        touch(run);
      }
      break;
    }
    case 'approval.requested': {
      const run = runOf(e.run_id);
      if (ws.approvals.has(e.approval_id)) reject('approval_id: this approval is already requested (an approval.requested with other content)');
      ws.approvals.set(e.approval_id, {
        approvalId: e.approval_id, runId: e.run_id, stepRunId: e.step_run_id, workflow: run.workflow,
        status: 'pending', message: e.message ?? null, requestedAt: at, expiresAt: msOrNull(e.expires_at),
        decidedAt: null, decidedBy: null, reason: null,
      });
      ch.approvals.add(e.approval_id);
      run.approvalStatus = 'pending';
      touch(run);
      break;
    }
    case 'approval.decided': {
      const approval = ws.approvals.get(e.approval_id)!;
      approval.status = e.decision;
      approval.decidedAt = at;
      approval.decidedBy = e.by ?? null;
      approval.reason = e.reason ?? null;
      ch.approvals.add(approval.approvalId);
      const run = runOf(approval.runId);
      run.approvalStatus = e.decision;
      touch(run);
      break;
    }
    case 'run.parked': {
      const run = runOf(e.run_id);
      run.status = 'waiting';
      run.waitKind = e.wait_kind;
      run.parkedAt = at;
      run.waitStepRunId = e.step_run_id ?? null;
      run.dueAt = msOrNull(e.due_at);
      run.expiresAt = msOrNull(e.expires_at);
      touch(run);
      break;
    }
    case 'run.resumed': {
      const run = runOf(e.run_id);
      if (run.status === 'waiting') run.status = 'running';
      clearWait(run);
      touch(run);
      break;
    }
    case 'run.finished': {
      const run = runOf(e.run_id);
      if (!TERMINAL_RUN_STATUSES.includes(run.status)) countFinish(statsOf(ws, ch, run.workflow), e, at, Math.max(0, at - run.createdAt));
      run.status = e.status;
      run.finishedAt = at;
      run.durationMs = Math.max(0, at - run.createdAt);
      if (e.error) run.errorKind = e.error.kind;
      else if (e.status === 'succeeded') run.errorKind = null;
      clearWait(run);
      touch(run);
      break;
    }
    case 'reorg.response': {
      runOf(e.run_id);
      if (ws.reorgs.has(e.reorg_id)) reject('reorg_id: this reorg is already recorded (a reorg.response with other content)');
      ws.reorgs.set(e.reorg_id, {
        reorgId: e.reorg_id, runId: e.run_id, workflow: e.workflow, network: e.network, block: e.block,
        removedBlockHash: e.removed_block_hash ?? null, createdAt: at, steps: [],
      });
      ch.reorgs.add(e.reorg_id);
      break;
    }
    case 'reorg.step': {
      const reorg = ws.reorgs.get(e.reorg_id)!;
      reorg.steps.push({ stepId: e.step_id, status: e.status, output: e.output ?? null, error: e.error ?? null, at });
      ch.reorgs.add(reorg.reorgId);
      break;
    }
    case 'session.started': {
      const existing = ws.sessions.get(e.session_id);
      ws.sessions.set(e.session_id, {
        sessionId: e.session_id, kind: e.kind, workflow: e.workflow, createdAt: at,
        finishedAt: existing?.finishedAt ?? null, runCount: existing?.runCount ?? 0,
        fromBlock: e.from_block ?? null, toBlock: e.to_block ?? null, note: e.note ?? null,
      });
      ch.sessions.add(e.session_id);
      break;
    }
    case 'session.finished': {
      ws.sessions.get(e.session_id)!.finishedAt = at;
      ch.sessions.add(e.session_id);
      break;
    }
    case 'workflow.state': {
      const wf = ws.workflows.get(e.workflow) ?? {
        workflow: e.workflow, paused: false, trigger: null, network: null, cursorBlock: null, headBlock: null, updatedAt: at,
      };
      if (e.paused !== undefined) wf.paused = e.paused;
      if (e.trigger !== undefined) wf.trigger = e.trigger;
      if (e.network !== undefined) wf.network = e.network;
      if (e.cursor_block !== undefined) wf.cursorBlock = e.cursor_block;
      if (e.head_block !== undefined) wf.headBlock = e.head_block;
      wf.updatedAt = Math.max(wf.updatedAt, at);
      ws.workflows.set(e.workflow, wf);
      ch.workflows.add(e.workflow);
      break;
    }
  }
  ws.eventKeys.add(key);
  ch.events.push({ stream, hash, type: e.type, at, event: e });
}

/** The stream an event is stored in: the run it belongs to, or its session / workflow. */
function streamOf(ws: WorkingSet, e: JournalEvent, reject: (reason: string) => never): string {
  switch (e.type) {
    case 'send.parked':
    case 'send.submitted':
    case 'send.settled':
      return (ws.sends.get(e.send_id) ?? reject('send_id: unknown send (no send.queued before it)')).runId;
    case 'approval.decided':
      return (ws.approvals.get(e.approval_id) ?? reject('approval_id: unknown approval (no approval.requested before it)')).runId;
    case 'reorg.step':
      return (ws.reorgs.get(e.reorg_id) ?? reject('reorg_id: unknown reorg (no reorg.response before it)')).runId;
    case 'session.started':
      return `session:${e.session_id}`;
    case 'session.finished':
      if (!ws.sessions.has(e.session_id)) reject('session_id: unknown session (no session.started before it)');
      return `session:${e.session_id}`;
    case 'workflow.state':
      return `workflow:${e.workflow}`;
    default:
      return e.run_id;
  }
}

function clearWait(run: Run): void {
  run.waitKind = null;
  run.parkedAt = null;
  run.waitStepRunId = null;
  run.dueAt = null;
  run.expiresAt = null;
}

function countSessionRun(ws: WorkingSet, ch: ChangeSet, sessionId: string, run: Run, at: number): void {
  let session = ws.sessions.get(sessionId);
  if (!session) {
    // A run may name its session before session.started is seen; the stub is completed when it arrives.
    session = {
      sessionId, kind: run.session === 'test' ? 'test' : 'replay', workflow: run.workflow, createdAt: at,
      finishedAt: null, runCount: 0, fromBlock: null, toBlock: null, note: null,
    };
    ws.sessions.set(sessionId, session);
  }
  session.runCount++;
  ch.sessions.add(sessionId);
}

function statsOf(ws: WorkingSet, ch: ChangeSet, workflow: string): WorkflowStats {
  let stats = ws.workflowStats.get(workflow);
  if (!stats) {
    stats = {
      workflow, lastRunAt: null, lastSuccessAt: null, lastFailureAt: null, successCount: 0, failureCount: 0,
      txCount: 0, recentErrorKind: null, recentErrorAt: null, durations: DurationHistogram.empty(),
    };
    ws.workflowStats.set(workflow, stats);
  }
  ch.workflowStats.add(workflow);
  return stats;
}

/** A run reached its end: success / failure counts, last success / failure, duration, most recent error. */
function countFinish(stats: WorkflowStats, e: Extract<JournalEvent, { type: 'run.finished' }>, at: number, durationMs: number): void {
  if (e.status === 'succeeded') {
    stats.successCount++;
    stats.lastSuccessAt = Math.max(stats.lastSuccessAt ?? at, at);
  } else if (e.status === 'failed' || e.status === 'dead_lettered') {
    stats.failureCount++;
    stats.lastFailureAt = Math.max(stats.lastFailureAt ?? at, at);
  }
  if (e.error && at >= (stats.recentErrorAt ?? at)) {
    stats.recentErrorKind = e.error.kind;
    stats.recentErrorAt = at;
  }
  stats.durations.add(durationMs);
}
