import type { RunProgress } from '../../domain/engine/run-progress';
import type { RelayerAddresses } from './relayer-addresses';

/**
 * A run's expression context (CONTRACT 8.1, 8.8): trigger, steps.<id>.{status, output}, run, relayers.<name>.address.
 * Secrets are never in it.
 */
export function runScope(p: RunProgress, relayers?: RelayerAddresses): Record<string, unknown> {
  const { started } = p;
  const steps: Record<string, unknown> = {};
  for (const s of p.steps.values()) steps[s.stepId] = { status: s.status, output: s.output };
  return {
    trigger: { kind: started.trigger.kind, payload: started.trigger.payload ?? null, ...(started.block !== undefined ? { block: started.block } : {}) },
    steps,
    run: { id: started.run_id, workflow: started.workflow, session: started.session },
    relayers: relayers?.context() ?? {},
  };
}
