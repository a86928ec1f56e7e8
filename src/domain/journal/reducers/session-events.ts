import type { Run } from '../../run';
import type { Fold, Reducers } from './fold';

/** Replay and test sessions: their start and end, and the runs they hold. */
export const SESSION_REDUCERS: Pick<Reducers, 'session.started' | 'session.finished'> = {
  'session.started': (f, e) => {
    const existing = f.ws.sessions.get(e.session_id);
    f.ws.sessions.set(e.session_id, {
      sessionId: e.session_id, kind: e.kind, workflow: e.workflow, createdAt: f.at,
      finishedAt: existing?.finishedAt ?? null, runCount: existing?.runCount ?? 0,
      fromBlock: e.from_block ?? null, toBlock: e.to_block ?? null, note: e.note ?? null,
    });
    f.ch.sessions.add(e.session_id);
  },
  'session.finished': (f, e) => {
    // The projector found the session before (it is the event's stream).
    f.ws.sessions.get(e.session_id)!.finishedAt = f.at;
    f.ch.sessions.add(e.session_id);
  },
};

/** A run of a session started: the session counts it. */
export function countSessionRun(f: Fold, sessionId: string, run: Run): void {
  let session = f.ws.sessions.get(sessionId);
  if (!session) {
    // A run may name its session before session.started is seen; the stub is completed when it arrives.
    session = {
      sessionId, kind: run.session === 'test' ? 'test' : 'replay', workflow: run.workflow, createdAt: f.at,
      finishedAt: null, runCount: 0, fromBlock: null, toBlock: null, note: null,
    };
    f.ws.sessions.set(sessionId, session);
  }
  session.runCount++;
  f.ch.sessions.add(sessionId);
}
