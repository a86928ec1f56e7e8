import type { RunEndStatus } from '../../domain/journal/journal-event';

/**
 * What this engine process did, for counters (the metrics adapter exports them on /metrics). Counted where the
 * process does it, not read from storage: Prometheus sums the processes and handles a restart's reset.
 */
export interface EngineMetrics {
  /** This process journaled the run's end. */
  runEnded(workflow: string, status: RunEndStatus): void;
  /** This process ran one attempt of a step to its end (not a park), taking `seconds`. */
  stepFinished(workflow: string, stepType: string, seconds: number): void;
  /** This process rolled back (or, `deep`, found too deep to roll back) a reorg of the network (CONTRACT 8.6). */
  reorgSeen(network: string, deep: boolean): void;
}
export const EngineMetrics = Symbol('EngineMetrics');

/** Counts nothing (tools that expose no metrics). */
export const NO_ENGINE_METRICS: EngineMetrics = { runEnded: () => undefined, stepFinished: () => undefined, reorgSeen: () => undefined };
