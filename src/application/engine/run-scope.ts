import type { RunProgress } from '../../domain/engine/run-progress';
import type { RunStarted } from '../../domain/journal/journal-event';
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
    trigger: triggerScope(started),
    steps,
    run: { id: started.run_id, workflow: started.workflow, session: started.session },
    relayers: relayers?.context() ?? {},
  };
}

/**
 * `trigger`: kind and payload; for an event run also `block { number, hash, timestamp }`, `tx_hash` and
 * `log { address, log_index }` (CONTRACT 8.6). A run whose start names only a block number (imported) gets that.
 */
function triggerScope(started: RunStarted): Record<string, unknown> {
  const { trigger } = started;
  return {
    kind: trigger.kind, payload: trigger.payload ?? null,
    ...(trigger.block ? { block: trigger.block } : started.block !== undefined ? { block: started.block } : {}),
    ...(trigger.tx_hash ? { tx_hash: trigger.tx_hash } : {}),
    ...(trigger.log ? { log: trigger.log } : {}),
  };
}

/**
 * The block a replay session's chain steps run at (CONTRACT 8.6): its log's block, so that a send is simulated and a
 * read answered as the chain was then. Undefined outside a replay (the latest block).
 */
export function replayBlockOf(scope: Readonly<Record<string, unknown>>): bigint | undefined {
  const run = scope.run as { session?: string } | undefined;
  if (run?.session !== 'replay') return undefined;
  const block = (scope.trigger as { block?: unknown } | undefined)?.block;
  const number = typeof block === 'object' && block !== null ? (block as { number?: unknown }).number : block;
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0 ? BigInt(number) : undefined;
}
