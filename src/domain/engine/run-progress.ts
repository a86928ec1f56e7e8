import type { ErrorInfo, JournalEvent, Json, RunEndStatus, RunStarted, WaitKind } from '../journal/journal-event';
import { parseRfc3339 } from '../time';

/** How far one step run has got, from its journal events. */
export interface StepProgress {
  readonly stepRunId: string;
  readonly stepId: string;
  /** Attempts started so far (the last one is `attempts`). */
  attempts: number;
  /** `running` from a step.started until its step.finished. */
  status: 'running' | 'succeeded' | 'failed' | 'skipped';
  output: Json | null;
  error: ErrorInfo | null;
  /** When the last attempt finished (epoch ms), null while it runs. */
  finishedAt: number | null;
}

export interface ApprovalProgress {
  readonly approvalId: string;
  readonly stepRunId: string;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  by: string | null;
  reason: string | null;
  readonly expiresAt: number | null;
}

export interface ParkedProgress {
  readonly kind: WaitKind;
  readonly stepRunId: string | null;
  readonly dueAt: number | null;
  readonly expiresAt: number | null;
}

/**
 * A run as the engine needs it to go on: replayed from the run's own journal stream, so that whichever engine
 * process takes the run next (after a park, a restart or a crash) continues exactly where the journal stands.
 */
export interface RunProgress {
  readonly started: RunStarted;
  conditionsChecked: boolean;
  readonly steps: Map<string, StepProgress>;
  /** Approvals by step run id (the last one requested for it). */
  readonly approvals: Map<string, ApprovalProgress>;
  parked: ParkedProgress | null;
  finished: RunEndStatus | null;
}

const ms = (iso: string | undefined): number | null => (iso === undefined ? null : (parseRfc3339(iso) ?? null));

/** Replays a run's stream; undefined when it holds no run.started (the run was never journaled). */
export function runProgress(stream: readonly JournalEvent[]): RunProgress | undefined {
  const first = stream.find((e): e is RunStarted => e.type === 'run.started');
  if (!first) return undefined;
  const progress: RunProgress = {
    started: first, conditionsChecked: false, steps: new Map(), approvals: new Map(), parked: null, finished: null,
  };
  for (const e of stream) advance(progress, e);
  return progress;
}

/** Folds one more event of the run into its progress (the runner keeps it current as it journals). */
export function advance(p: RunProgress, e: JournalEvent): void {
  switch (e.type) {
    case 'run.conditions':
      p.conditionsChecked = true;
      break;
    case 'step.started': {
      const step = p.steps.get(e.step_id);
      if (step) {
        step.attempts = Math.max(step.attempts, e.attempt);
        step.status = 'running';
        step.finishedAt = null;
      } else {
        p.steps.set(e.step_id, {
          stepRunId: e.step_run_id, stepId: e.step_id, attempts: e.attempt, status: 'running', output: null, error: null, finishedAt: null,
        });
      }
      break;
    }
    case 'step.finished': {
      const step = [...p.steps.values()].find((s) => s.stepRunId === e.step_run_id);
      if (!step) break;
      step.status = e.status;
      step.output = e.output ?? null;
      step.error = e.error ?? null;
      step.finishedAt = ms(e.at);
      break;
    }
    case 'approval.requested':
      p.approvals.set(e.step_run_id, {
        approvalId: e.approval_id, stepRunId: e.step_run_id, status: 'pending', by: null, reason: null, expiresAt: ms(e.expires_at),
      });
      break;
    case 'approval.decided':
      for (const a of p.approvals.values()) {
        if (a.approvalId !== e.approval_id) continue;
        a.status = e.decision;
        a.by = e.by ?? null;
        a.reason = e.reason ?? null;
      }
      break;
    case 'run.parked':
      p.parked = { kind: e.wait_kind, stepRunId: e.step_run_id ?? null, dueAt: ms(e.due_at), expiresAt: ms(e.expires_at) };
      break;
    case 'run.resumed':
      p.parked = null;
      break;
    case 'run.finished':
      p.parked = null;
      p.finished = e.status;
      break;
    default:
      break;
  }
}

/** The step whose attempt was started and never finished (a crash mid-step), if any. */
export function unfinishedStep(p: RunProgress): StepProgress | undefined {
  return [...p.steps.values()].find((s) => s.status === 'running');
}
