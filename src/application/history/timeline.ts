import { JournalRejectedError } from '../../domain/errors';
import type { ExplorerLinks } from '../../domain/explorer';
import type { ErrorInfo, JournalEvent, Json } from '../../domain/journal/journal-event';
import { applyEvents } from '../../domain/journal/projector';
import { emptyWorkingSet, type WorkingSet } from '../../domain/journal/working-set';
import type { Run } from '../../domain/run';
import { isoText } from '../../domain/time';
import { reorgLink, triggerLog, type ReorgLink, type TriggerLog } from './timeline-chain';
import { toApprovalItem, toRunItem, toSendAttemptItem, type ApprovalItem, type RunItem, type SendAttemptItem } from './items';

export interface Attempt {
  attempt: number;
  started_at: string;
  finished_at: string | null;
  status: string;
  error: ErrorInfo | null;
}

export interface WaitInfo {
  wait_kind: string;
  parked_at: string;
  due_at: string | null;
  expires_at: string | null;
  resumed_at: string | null;
}

export interface TriggerEvent {
  kind: 'trigger';
  at: string;
  trigger: { kind: string; summary: string | null; payload: Json | null };
  conditions: { name: string; passed: boolean; detail: Json | null }[];
  session: string;
  session_id: string | null;
  replay_of: string | null;
  network: string | null;
  contract: string | null;
  block: number | null;
  /** The log that started an event run (block, transaction, place), with explorer links; null for other triggers. */
  log: TriggerLog | null;
  /** The reorg responses naming this run (its log's block was removed), oldest first. */
  reorgs: ReorgLink[];
}

export interface StepEvent {
  kind: 'step';
  at: string;
  step_run_id: string;
  step_id: string;
  step_type: string;
  status: string;
  attempts: Attempt[];
  input: Json | null;
  output: Json | null;
  error: ErrorInfo | null;
  simulation: { ok: boolean; gas_estimate: string | null; revert_reason: string | null; at: string } | null;
  budget_checks: { budget: string; cap: string; spent_wei: string; cap_wei: string; request_wei: string | null; token: string | null; allowed: boolean; at: string }[];
  sends: SendAttemptItem[];
  wait: WaitInfo | null;
}

export interface ApprovalEvent {
  kind: 'approval';
  at: string;
  approval: ApprovalItem;
}

export interface ReorgStepEvent {
  kind: 'reorg_step';
  at: string;
  reorg_id: string;
  step_id: string;
  status: string;
  output: Json | null;
  error: ErrorInfo | null;
  network: string;
  block: number;
  removed_block_hash: string | null;
}

export type TimelineEvent = TriggerEvent | StepEvent | ApprovalEvent | ReorgStepEvent;

export interface Timeline {
  run: RunItem;
  events: TimelineEvent[];
}

const iso = (at: string): string => isoText(at) as string;

/**
 * One run, chronologically: its trigger (with condition results), each step run (attempts, input, output,
 * simulation, budget checks, sends, wait parking), approvals, and the steps of reorg responses against it.
 * Built by replaying the run's own journal stream, so it shows exactly what was journaled.
 */
export function buildTimeline(run: Run, stream: readonly JournalEvent[], explorer: ExplorerLinks): Timeline {
  return { run: toRunItem(run), events: timelineEvents(stream, explorer) };
}

/** The events of a timeline, from the run's stream alone. */
export function timelineEvents(stream: readonly JournalEvent[], explorer: ExplorerLinks): TimelineEvent[] {
  const ws = replay(stream);
  const events: TimelineEvent[] = [];
  const steps = new StepFold((e, at): StepEvent => ({
    kind: 'step', at, step_run_id: e.step_run_id, step_id: e.step_id, step_type: e.step_type,
    status: 'running', attempts: [], input: null, output: null, error: null, simulation: null,
    budget_checks: [], sends: [], wait: null,
  }));
  let trigger: TriggerEvent | undefined;

  for (const e of stream) {
    switch (e.type) {
      case 'run.started':
        trigger = {
          kind: 'trigger', at: iso(e.at),
          trigger: { kind: e.trigger.kind, summary: e.trigger.summary ?? null, payload: e.trigger.payload ?? null },
          conditions: [], session: e.session, session_id: e.session_id ?? null, replay_of: e.replay_of ?? null,
          network: e.network ?? null, contract: e.contract ?? null, block: e.block ?? null,
          log: triggerLog(e, explorer), reorgs: [],
        };
        events.push(trigger);
        break;
      case 'run.conditions':
        if (trigger) trigger.conditions = e.results.map((r) => ({ name: r.name, passed: r.passed, detail: r.detail ?? null }));
        break;
      case 'approval.requested':
        events.push({ kind: 'approval', at: iso(e.at), approval: toApprovalItem(ws.approvals.get(e.approval_id)!) });
        break;
      case 'reorg.step': {
        const reorg = ws.reorgs.get(e.reorg_id)!;
        events.push({
          kind: 'reorg_step', at: iso(e.at), reorg_id: e.reorg_id, step_id: e.step_id, status: e.status,
          output: e.output ?? null, error: e.error ?? null, network: reorg.network, block: reorg.block,
          removed_block_hash: reorg.removedBlockHash,
        });
        break;
      }
      default: {
        const created = steps.apply(e);
        if (created) events.push(created);
      }
    }
  }
  for (const send of ws.sends.values()) {
    steps.get(send.stepRunId)?.sends.push(toSendAttemptItem(send, (n, c, h) => explorer.tx(n, c, h)));
  }
  // The stream is the run's own: every reorg response in it names this run.
  if (trigger) trigger.reorgs = [...ws.reorgs.values()].sort((a, b) => a.createdAt - b.createdAt).map((r) => reorgLink(r, explorer));
  return byTime(events);
}

/**
 * The step runs of a timeline alone, without their sends, each with its run's id first: what the export's `steps`
 * section shows (ExportStep). The same fold as `timelineEvents` (and the same order: the timeline's steps keep their
 * relative order), without replaying the stream's projections, which only the sends, approvals and reorg steps
 * need. Reads only the events of STEP_EVENT_TYPES, so a caller may pass the stream with every other event left out.
 * The steps are built in their export shape (no copy of each without its `kind` and `sends`: exports fold millions).
 */
export function exportSteps(runId: string, stream: readonly JournalEvent[]): ExportStep[] {
  return foldExportSteps(runId, undefined, stream).steps as ExportStep[];
}

/**
 * `exportSteps` a part of a stream at a time: the fold of `events` picked up where the fold of the stream's earlier
 * events left it (`from`, whose steps it takes over and changes). Its steps are in exportSteps' order (by time,
 * ties in journal order: the steps folded before keep their order, ahead of the new ones on a tie), so that folding
 * a stream in any number of parts gives exportSteps of the whole stream.
 */
export function foldExportSteps(runId: string, from: StepFoldState<ExportStep> | undefined, events: readonly JournalEvent[]): StepFoldState<ExportStep> {
  const fold = new StepFold((e, at): ExportStep => ({
    run_id: runId, at, step_run_id: e.step_run_id, step_id: e.step_id, step_type: e.step_type,
    status: 'running', attempts: [], input: null, output: null, error: null, simulation: null,
    budget_checks: [], wait: null,
  }), from);
  const created: ExportStep[] = [];
  for (const e of events) {
    const step = fold.apply(e);
    if (step) created.push(step);
  }
  const { last, openWait } = fold.position();
  return { steps: byTime([...(from?.steps ?? []), ...created]), last, openWait };
}

/** The journal event types that make up a timeline's step runs (see StepFold). */
export const STEP_EVENT_TYPES: readonly JournalEvent['type'][] = [
  'step.started', 'step.simulated', 'budget.checked', 'step.finished', 'run.parked', 'run.resumed', 'run.finished',
];

/** Stable sort on `at`: events that share a timestamp keep journal order. */
function byTime<T extends { at: string }>(events: T[]): T[] {
  return events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

/** What the fold fills in of a step run, whatever else its shape holds (the timeline's kind and sends, the export's run id). */
type FoldedStep = Omit<StepEvent, 'kind' | 'sends'>;

/** A step run in an export: the timeline's step, with its run, without the sends (they have their own list). */
export type ExportStep = { run_id: string } & FoldedStep;

/** Where a fold of step runs picks up: the step runs folded so far, and what of the stream's state they do not show. */
export interface StepFoldState<S> {
  /** The step runs folded so far (in any order: the fold looks them up by id). */
  readonly steps: readonly S[];
  /** The step run started last: where a `run.parked` without a step_run_id parks. */
  readonly last: string | null;
  /** The step run whose wait is still open (a `run.resumed` or `run.finished` stamps its resumed_at), if any. */
  readonly openWait: string | null;
}

/**
 * The step runs of a stream, folded event by event (attempts, simulation, budget checks, outcome, wait parking).
 * `create` makes a step run in its shape from its first step.started, with its time already rendered, status
 * `running` and nothing else filled in. `from`: the state a fold of the stream's earlier events left (see `state`),
 * so that a stream can be folded a part at a time (the export's projection of step runs, kept by the writer).
 */
class StepFold<S extends FoldedStep> {
  private readonly steps = new Map<string, S>();
  private last: S | undefined;
  private open: { step: S | undefined; wait: WaitInfo } | undefined;

  constructor(private readonly create: (e: Extract<JournalEvent, { type: 'step.started' }>, at: string) => S, from?: StepFoldState<S>) {
    if (!from) return;
    for (const step of from.steps) this.steps.set(step.step_run_id, step);
    this.last = from.last === null ? undefined : this.steps.get(from.last);
    const openStep = from.openWait === null ? undefined : this.steps.get(from.openWait);
    if (openStep?.wait) this.open = { step: openStep, wait: openStep.wait };
  }

  get(stepRunId: string): S | undefined {
    return this.steps.get(stepRunId);
  }

  /** Where a later fold of the same stream picks up, besides the step runs themselves (see StepFoldState). */
  position(): Omit<StepFoldState<S>, 'steps'> {
    return { last: this.last?.step_run_id ?? null, openWait: this.open?.step?.step_run_id ?? null };
  }

  /** Applies one event; returns the step run it started, if it is a new one. Other events are ignored. */
  apply(e: JournalEvent): S | undefined {
    const steps = this.steps;
    switch (e.type) {
      case 'step.started': {
        let step = steps.get(e.step_run_id);
        let created: S | undefined;
        if (!step) {
          step = this.create(e, iso(e.at));
          steps.set(e.step_run_id, step);
          this.last = step;
          created = step;
        }
        step.status = 'running';
        step.attempts.push({ attempt: e.attempt, started_at: iso(e.at), finished_at: null, status: 'running', error: null });
        if (e.input !== undefined) step.input = e.input;
        return created;
      }
      case 'step.simulated': {
        const step = steps.get(e.step_run_id);
        if (step) step.simulation = { ok: e.ok, gas_estimate: e.gas_estimate ?? null, revert_reason: e.revert_reason ?? null, at: iso(e.at) };
        return undefined;
      }
      case 'budget.checked':
        steps.get(e.step_run_id)?.budget_checks.push({
          budget: e.budget, cap: e.cap ?? 'max_gas_spend', spent_wei: e.spent_wei, cap_wei: e.cap_wei,
          request_wei: e.request_wei ?? null, token: e.token ?? null, allowed: e.allowed, at: iso(e.at),
        });
        return undefined;
      case 'step.finished': {
        const step = steps.get(e.step_run_id);
        if (!step) return undefined;
        step.status = e.status;
        step.output = e.output ?? null;
        step.error = e.error ?? null;
        const attempt = step.attempts[step.attempts.length - 1];
        if (attempt) Object.assign(attempt, { finished_at: iso(e.at), status: e.status, error: e.error ?? null });
        return undefined;
      }
      case 'run.parked': {
        const wait: WaitInfo = { wait_kind: e.wait_kind, parked_at: iso(e.at), due_at: e.due_at ? iso(e.due_at) : null, expires_at: e.expires_at ? iso(e.expires_at) : null, resumed_at: null };
        const step = e.step_run_id ? steps.get(e.step_run_id) : this.last;
        this.open = { step, wait };
        if (step) {
          step.wait = wait;
          if (step.status === 'running') step.status = 'waiting';
        }
        return undefined;
      }
      case 'run.resumed':
      case 'run.finished':
        if (this.open) this.open.wait.resumed_at = iso(e.at);
        this.open = undefined;
        for (const step of steps.values()) if (step.status === 'waiting') step.status = 'running';
        return undefined;
      default:
        return undefined;
    }
  }
}

/**
 * The projections of a run's stored stream (its sends, approvals, reorgs). A stream stored before the journal
 * guarded lifecycles may hold a move it now refuses (a finished run parked, say): the timeline still shows every
 * stored event, and the projections leave out what the journal would refuse today.
 */
function replay(stream: readonly JournalEvent[]): WorkingSet {
  // The stream holds distinct events already: ordinals stand in for content hashes (no need to hash them).
  const ordinals = stream.map((_, i) => String(i));
  try {
    const ws = emptyWorkingSet();
    applyEvents(ws, stream, 0, ordinals);
    return ws;
  } catch (err) {
    if (!(err instanceof JournalRejectedError)) throw err;
  }
  // Event by event, so that a refused one is left out (a refusal comes before any change it would make).
  const ws = emptyWorkingSet();
  stream.forEach((e, i) => {
    try {
      applyEvents(ws, [e], i, [ordinals[i]!]);
    } catch (err) {
      if (!(err instanceof JournalRejectedError)) throw err;
    }
  });
  return ws;
}
