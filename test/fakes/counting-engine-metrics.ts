import type { DriveOutcome, EngineMetrics } from '../../src/application/ports/engine-metrics';
import type { RunEndStatus } from '../../src/domain/journal/journal-event';

/** Records what the engine reports, for tests. */
export class CountingEngineMetrics implements EngineMetrics {
  readonly ends: Array<{ workflow: string; status: RunEndStatus }> = [];
  readonly reorgs: Array<{ network: string; deep: boolean }> = [];
  readonly steps: Array<{ workflow: string; stepType: string; seconds: number }> = [];
  readonly drives: Array<{ workflow: string; outcome: DriveOutcome }> = [];
  /** Every value the held-leases gauge was set to, in order. */
  readonly held: number[] = [];
  readonly claims: Array<{ seconds: number; claimed: number }> = [];
  readonly lost: string[] = [];
  runEnded(workflow: string, status: RunEndStatus): void {
    this.ends.push({ workflow, status });
  }
  stepFinished(workflow: string, stepType: string, seconds: number): void {
    this.steps.push({ workflow, stepType, seconds });
  }
  runDriven(workflow: string, outcome: DriveOutcome): void {
    this.drives.push({ workflow, outcome });
  }
  leasesHeld(count: number): void {
    this.held.push(count);
  }
  claimed(seconds: number, claimed: number): void {
    this.claims.push({ seconds, claimed });
  }
  leaseLost(workflow: string): void {
    this.lost.push(workflow);
  }
  reorgSeen(network: string, deep: boolean): void {
    this.reorgs.push({ network, deep });
  }
}
