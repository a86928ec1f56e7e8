import { assertRunOpen, finishRun, parkRun, resumeRun, startStep, type Run } from '../../run';
import { msOrNull, type Fold, type Reducers } from './fold';
import { countSessionRun } from './session-events';
import { countFinish, countStart, statsOf } from './workflow-stats';

type RunEventType = 'run.started' | 'run.conditions' | 'step.started' | 'step.simulated' | 'budget.checked' | 'step.finished'
  | 'run.parked' | 'run.resumed' | 'run.finished';

/** A move of a run that changes no projection: it only needs the run, not finished. */
const move = (f: Fold, e: { readonly type: string; readonly run_id: string }): void => assertRunOpen(f.run(e.run_id), e.type);

/** The run's own events: its start, its steps, its parks and resumes, its end (and the workflow stats they count). */
export const RUN_REDUCERS: Pick<Reducers, RunEventType> = {
  'run.started': (f, e) => {
    if (f.ws.runs.has(e.run_id)) f.refuse('run_id: this run already started (a run.started with other content)');
    const at = f.at;
    const run: Run = {
      runId: e.run_id, workflow: e.workflow, status: 'running', triggerKind: e.trigger.kind, session: e.session,
      sessionId: e.session_id ?? null, network: e.network ?? null, contract: e.contract ?? null,
      block: e.block ?? null, relayers: [], txHashes: [], stepIds: [], errorKind: null, approvalStatus: null,
      waitKind: null, parkedAt: null, waitStepRunId: null, dueAt: null, expiresAt: null,
      replayOf: e.replay_of ?? null, createdAt: at, finishedAt: null, durationMs: null,
    };
    f.ws.runs.set(run.runId, run);
    f.touch(run);
    f.listsGrew(run);
    countStart(statsOf(f, run.workflow), at);
    if (e.session_id) countSessionRun(f, e.session_id, run);
  },
  'run.conditions': move,
  'step.simulated': move,
  'budget.checked': move,
  'step.started': (f, e) => {
    const run = f.run(e.run_id);
    if (startStep(run, e.step_id)) f.listsGrew(run);
    f.touch(run);
  },
  'step.finished': (f, e) => {
    const run = f.run(e.run_id);
    assertRunOpen(run, e.type);
    if (e.status === 'failed' && e.error) {
      run.errorKind = e.error.kind;
      f.touch(run);
    }
  },
  'run.parked': (f, e) => {
    const run = f.run(e.run_id);
    parkRun(run, e.wait_kind, e.step_run_id ?? null, msOrNull(e.due_at), msOrNull(e.expires_at), f.at);
    f.touch(run);
  },
  'run.resumed': (f, e) => {
    const run = f.run(e.run_id);
    resumeRun(run);
    f.touch(run);
  },
  'run.finished': (f, e) => {
    const run = f.run(e.run_id);
    const errorKind = e.error?.kind;
    const durationMs = finishRun(run, e.status, errorKind, f.at);
    countFinish(statsOf(f, run.workflow), e.status, errorKind, f.at, durationMs);
    f.touch(run);
  },
};
