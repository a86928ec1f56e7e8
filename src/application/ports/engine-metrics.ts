import type { RunEndStatus } from '../../domain/journal/journal-event';

/**
 * How a drive left the run: ended, parked (released to be claimed when due), gone (nothing to drive), or lost (its
 * lease was taken over by another driver, whose the run is now: this one wrote nothing after).
 */
export type DriveOutcome = 'finished' | 'parked' | 'gone' | 'lost';

/**
 * What this engine process did, for counters (the metrics adapter exports them on /metrics). Counted where the
 * process does it, not read from storage: Prometheus sums the processes and handles a restart's reset.
 */
export interface EngineMetrics {
  /** This process journaled the run's end. */
  runEnded(workflow: string, status: RunEndStatus): void;
  /** This process ran one attempt of a step to its end (not a park), taking `seconds`. */
  stepFinished(workflow: string, stepType: string, seconds: number): void;
  /** This process drove a run (claimed from the schedule or started here) until the drive left it as `outcome`. */
  runDriven(workflow: string, outcome: DriveOutcome): void;
  /** The run leases this process holds now (the runs it is driving). */
  leasesHeld(count: number): void;
  /** One claim of due runs from the schedule: `seconds` the database took to answer, `claimed` leases it gave. */
  claimed(seconds: number, claimed: number): void;
  /** A lease of this process was taken over by another driver (it had run past its end). */
  leaseLost(workflow: string): void;
  /** This process rolled back (or, `deep`, found too deep to roll back) a reorg of the network (CONTRACT 8.6). */
  reorgSeen(network: string, deep: boolean): void;
}
export const EngineMetrics = Symbol('EngineMetrics');

/** Counts nothing (tools that expose no metrics). */
export const NO_ENGINE_METRICS: EngineMetrics = {
  runEnded: () => undefined,
  stepFinished: () => undefined,
  runDriven: () => undefined,
  leasesHeld: () => undefined,
  claimed: () => undefined,
  leaseLost: () => undefined,
  reorgSeen: () => undefined,
};
