import { createHash } from 'node:crypto';
import { canonicalJson } from '../journal/canonical';
import type { StepDefinition, WorkflowDefinition } from './workflow';

/**
 * A workflow definition as a run started with it, fit to keep in storage (CONTRACT 8.7: a run continues on the
 * definition it started with): its secrets are left out (header values, the webhook key), and restored from the
 * configuration when the run goes on. `hash` names it; the same definition always has the same hash.
 */
export interface PinnedDefinition {
  readonly hash: string;
  readonly definition: WorkflowDefinition;
}

/** The definition without its secret values: header names are kept, each value is empty. */
function withoutSecrets(definition: WorkflowDefinition): WorkflowDefinition {
  const strip = (s: StepDefinition): StepDefinition =>
    (s.type === 'http_call' ? { ...s, headers: Object.fromEntries(Object.keys(s.headers).map((name) => [name, ''])) } : s);
  return {
    ...definition,
    trigger: definition.trigger.kind === 'webhook' ? { kind: 'webhook', secret: '' } : definition.trigger,
    steps: definition.steps.map(strip),
    onReorg: definition.onReorg.map(strip),
  };
}

export function pinDefinition(definition: WorkflowDefinition): PinnedDefinition {
  const kept = withoutSecrets(definition);
  return { hash: createHash('sha256').update(canonicalJson(kept)).digest('hex').slice(0, 32), definition: kept };
}

/** A secret header of a pinned step that the configuration no longer gives. */
export interface MissingSecret {
  readonly stepId: string;
  readonly header: string;
}

/**
 * The pinned definition with its secrets taken from the configured one (`current`): a header of a step is given the
 * value the configuration has for the same step and header now. A header the configuration no longer has is
 * named in `missing` (a step of it not yet run cannot run as it started).
 */
export function unpinDefinition(pinned: WorkflowDefinition, current: WorkflowDefinition): { definition: WorkflowDefinition; missing: MissingSecret[] } {
  const missing: MissingSecret[] = [];
  const restore = (list: readonly StepDefinition[], from: readonly StepDefinition[]) => list.map((s): StepDefinition => {
    if (s.type !== 'http_call') return s;
    const now = from.find((c) => c.id === s.id);
    const headers: Record<string, string> = {};
    for (const name of Object.keys(s.headers)) {
      const value = now?.type === 'http_call' ? now.headers[name] : undefined;
      if (value === undefined) missing.push({ stepId: s.id, header: name });
      headers[name] = value ?? '';
    }
    return { ...s, headers };
  });
  return {
    definition: { ...pinned, trigger: current.trigger, steps: restore(pinned.steps, current.steps), onReorg: restore(pinned.onReorg, current.onReorg) },
    missing,
  };
}
