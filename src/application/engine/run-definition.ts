import { pinDefinition, unpinDefinition } from '../../domain/engine/pinned-definition';
import type { RunProgress } from '../../domain/engine/run-progress';
import type { WorkflowDefinition } from '../../domain/engine/workflow';
import type { EngineStore } from '../ports/engine-store';
import type { WorkflowCatalog } from '../workflow-catalog';

/** Each configured definition's hash, computed once (a digest of the whole definition), not at every drive. */
const hashes = new WeakMap<WorkflowDefinition, string>();

function hashOf(definition: WorkflowDefinition): string {
  let hash = hashes.get(definition);
  if (hash === undefined) hashes.set(definition, (hash = pinDefinition(definition).hash));
  return hash;
}

/** The definition a run goes on with, or why it cannot go on (a `definition_changed` dead letter's message). */
export type RunDefinition = { readonly definition: WorkflowDefinition } | { readonly changed: string };

/**
 * The definition a run goes on with (CONTRACT 8.7): the one it started with (kept by hash in the schedule), with
 * the configuration's secrets, so that a change that adds or edits steps after its position does not reach it.
 * The run cannot go on when its workflow left the configuration, when the step it stands at (the first not done)
 * did, or when a secret header of a step still to run is no longer configured. A run enqueued without a pinned
 * definition (before they were kept) goes on with the configured one.
 */
export async function runDefinition(catalog: WorkflowCatalog, store: EngineStore, p: RunProgress, hash: string | null | undefined): Promise<RunDefinition> {
  const workflow = p.started.workflow;
  const current = catalog.get(workflow);
  if (!current) return { changed: `workflow ${workflow} is no longer configured` };
  const kept = hash && hashOf(current) !== hash ? await store.pinnedDefinition(hash) : undefined;
  if (!kept) return { definition: current };
  const done = (id: string): boolean => ['succeeded', 'skipped'].includes(p.steps.get(id)?.status ?? '');
  const position = kept.steps.find((s) => !done(s.id));
  if (position && !current.steps.some((s) => s.id === position.id)) return { changed: `step ${position.id} is no longer in workflow ${workflow}` };
  const { definition, missing } = unpinDefinition(kept, current);
  const needed = missing.find((m) => !done(m.stepId));
  if (needed) return { changed: `header ${needed.header} of step ${needed.stepId} is no longer configured in workflow ${workflow}` };
  return { definition };
}
