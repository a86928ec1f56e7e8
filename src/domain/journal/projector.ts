import { InvalidTransitionError, JournalRejectedError } from '../errors';
import { parseRfc3339 } from '../time';
import { canonicalJson, eventHash } from './canonical';
import type { JournalEvent, JournalEventType } from './journal-event';
import { APPROVAL_REDUCERS } from './reducers/approval-events';
import { Fold, type Reducer, type Reducers } from './reducers/fold';
import { REORG_REDUCERS } from './reducers/reorg-events';
import { RUN_REDUCERS } from './reducers/run-events';
import { SEND_REDUCERS } from './reducers/send-events';
import { SESSION_REDUCERS } from './reducers/session-events';
import { WORKFLOW_REDUCERS } from './reducers/workflow-events';
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

/** One small reducer per event family; each keeps the projections its events change. */
const REDUCERS: Reducers = {
  ...RUN_REDUCERS, ...SEND_REDUCERS, ...APPROVAL_REDUCERS, ...REORG_REDUCERS, ...SESSION_REDUCERS, ...WORKFLOW_REDUCERS,
};

/**
 * Folds journal events into the projections the query layer reads (runs, send attempts, approvals, reorg
 * responses, sessions, workflow states and stats). Pure: the same events over the same working set give the
 * same rows, whatever the storage. An event already stored (same stream, same content) is skipped, so applying
 * a journal twice leaves the same state. An event that refers to what was never journaled, or that a run's,
 * send's or approval's lifecycle forbids (a finished run parked, say), is refused: a JournalRejectedError naming
 * its index (`offset` + its position in `events`) and why.
 */
export function applyEvents(ws: WorkingSet, events: readonly JournalEvent[], offset = 0, hashes?: readonly string[]): ChangeSet {
  const changes = new ChangeSet();
  const f = new Fold(ws, changes);
  try {
    for (let i = 0; i < events.length; i++) {
      f.index = offset + i;
      applyOne(f, events[i]!, hashes?.[i]);
    }
  } catch (err) {
    if (err instanceof InvalidTransitionError) throw new JournalRejectedError(f.index, err.reason);
    throw err;
  }
  return changes;
}

/** The identity of each event's content (see `applyEvents`); may be computed ahead, off the write path. */
export function contentHashes(events: readonly JournalEvent[]): string[] {
  return events.map((e) => eventHash(canonicalJson(e)));
}

function applyOne(f: Fold, e: JournalEvent, precomputed: string | undefined): void {
  const stream = streamOf(f, e);
  const hash = precomputed ?? eventHash(canonicalJson(e));
  const key = `${stream}\n${hash}`;
  if (f.ws.eventKeys.has(key)) {
    f.ch.duplicates++;
    return;
  }
  const reduce = REDUCERS[e.type] as Reducer<JournalEventType> | undefined;
  if (!reduce) f.refuse('type: unknown event type');
  const at = parseRfc3339(e.at) as number;
  f.at = at;
  reduce(f, e as never);
  f.ws.eventKeys.add(key);
  f.ch.events.push({ stream, hash, type: e.type, at, event: e });
}

/** The stream an event is stored in: the run it belongs to, or its session / workflow. */
function streamOf(f: Fold, e: JournalEvent): string {
  switch (e.type) {
    case 'send.parked':
    case 'send.submitted':
    case 'send.settled':
      return (f.ws.sends.get(e.send_id) ?? f.refuse('send_id: unknown send (no send.queued before it)')).runId;
    case 'approval.decided':
      return (f.ws.approvals.get(e.approval_id) ?? f.refuse('approval_id: unknown approval (no approval.requested before it)')).runId;
    case 'reorg.step':
      return (f.ws.reorgs.get(e.reorg_id) ?? f.refuse('reorg_id: unknown reorg (no reorg.response before it)')).runId;
    case 'session.started':
      return `session:${e.session_id}`;
    case 'session.finished':
      if (!f.ws.sessions.has(e.session_id)) f.refuse('session_id: unknown session (no session.started before it)');
      return `session:${e.session_id}`;
    case 'workflow.state':
      return `workflow:${e.workflow}`;
    default:
      return e.run_id;
  }
}
