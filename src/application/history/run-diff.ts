import type { RunItem } from './items';
import type { StepEvent, Timeline, TriggerEvent } from './timeline';

/** One field that differs: its dotted path, and its value in run a and in run b (undefined: absent). */
export interface FieldChange {
  path: string;
  a: unknown;
  b: unknown;
}

export interface StepSide {
  step_run_id: string;
  status: string;
  attempts: number;
  duration_ms: number | null;
}

/** A step id of either run: how it went in each (null where that run did not run it) and what differs. */
export interface StepDiff {
  step_id: string;
  a: StepSide | null;
  b: StepSide | null;
  changes: FieldChange[];
}

export interface RunDiff {
  a: RunItem;
  b: RunItem;
  /** Run-level fields that differ (ids and times excluded). */
  run: FieldChange[];
  trigger: FieldChange[];
  steps: StepDiff[];
  sends: FieldChange[];
}

/** Fields that always differ between two runs and say nothing about how they differ. */
const RUN_IDENTITY = new Set(['run_id', 'created_at', 'finished_at', 'duration_ms', 'tx_hashes']);

/** Field-level differences of two JSON values, as dotted paths (`output.body.price`, `sends[0].status`). */
export function diffValues(a: unknown, b: unknown, path = '', out: FieldChange[] = []): FieldChange[] {
  if (Object.is(a, b)) return out;
  const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects) {
    out.push({ path: path || '.', a, b });
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) diffValues(a[i], b[i], `${path}[${i}]`, out);
    return out;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort()) {
    diffValues(ao[key], bo[key], path ? `${path}.${key}` : key, out);
  }
  return out;
}

function stepSide(step: StepEvent): StepSide {
  const last = step.attempts[step.attempts.length - 1];
  const first = step.attempts[0];
  const duration = first && last?.finished_at ? Date.parse(last.finished_at) - Date.parse(first.started_at) : null;
  return { step_run_id: step.step_run_id, status: step.status, attempts: step.attempts.length, duration_ms: duration };
}

/** What matters of a step when comparing: not its ids and times. */
function comparable(step: StepEvent): Record<string, unknown> {
  return {
    status: step.status, attempts: step.attempts.length, input: step.input, output: step.output, error: step.error,
    simulation: step.simulation && { ok: step.simulation.ok, gas_estimate: step.simulation.gas_estimate, revert_reason: step.simulation.revert_reason },
    budget_checks: step.budget_checks.map(({ at: _at, ...check }) => check),
    wait: step.wait && { wait_kind: step.wait.wait_kind },
  };
}

function comparableTrigger(t: TriggerEvent | undefined): Record<string, unknown> {
  return t ? { trigger: t.trigger, conditions: t.conditions, session: t.session, network: t.network, contract: t.contract, block: t.block } : {};
}

function comparableSends(steps: readonly StepEvent[]): unknown[] {
  return steps.flatMap((s) => s.sends.map((send) => ({
    step_id: s.step_id, network: send.network, relayer: send.relayer, to: send.to, value_wei: send.value_wei,
    status: send.status, outcome: send.outcome,
  })));
}

/**
 * Compares two runs (already redacted timelines): run fields, trigger, and steps aligned by step id (in the
 * order run a ran them, then the steps only b ran), each with status, attempts, duration and field changes.
 */
export function diffRuns(a: Timeline, b: Timeline): RunDiff {
  const stepsOf = (t: Timeline): StepEvent[] => t.events.filter((e): e is StepEvent => e.kind === 'step');
  const byId = (steps: StepEvent[]): Map<string, StepEvent> => {
    const map = new Map<string, StepEvent>();
    for (const s of steps) map.set(s.step_id, s); // a step id run twice: the last step run counts
    return map;
  };
  const stepsA = stepsOf(a);
  const stepsB = stepsOf(b);
  const mapA = byId(stepsA);
  const mapB = byId(stepsB);
  const order = [...new Set([...stepsA.map((s) => s.step_id), ...stepsB.map((s) => s.step_id)])];
  const runFields = (r: RunItem): Record<string, unknown> =>
    Object.fromEntries(Object.entries(r).filter(([k]) => !RUN_IDENTITY.has(k)));
  const triggerOf = (t: Timeline): TriggerEvent | undefined => t.events.find((e): e is TriggerEvent => e.kind === 'trigger');
  return {
    a: a.run,
    b: b.run,
    run: diffValues(runFields(a.run), runFields(b.run)),
    trigger: diffValues(comparableTrigger(triggerOf(a)), comparableTrigger(triggerOf(b))),
    steps: order.map((stepId) => {
      const sa = mapA.get(stepId);
      const sb = mapB.get(stepId);
      return {
        step_id: stepId,
        a: sa ? stepSide(sa) : null,
        b: sb ? stepSide(sb) : null,
        changes: sa && sb ? diffValues(comparable(sa), comparable(sb)) : [],
      };
    }),
    sends: diffValues(comparableSends(stepsA), comparableSends(stepsB)),
  };
}
