import type { EngineMetrics } from '../../src/application/ports/engine-metrics';
import type { RunEndStatus } from '../../src/domain/journal/journal-event';

/** Records what the engine reports, for tests. */
export class CountingEngineMetrics implements EngineMetrics {
  readonly ends: Array<{ workflow: string; status: RunEndStatus }> = [];
  readonly reorgs: Array<{ network: string; deep: boolean }> = [];
  readonly steps: Array<{ workflow: string; stepType: string; seconds: number }> = [];
  runEnded(workflow: string, status: RunEndStatus): void {
    this.ends.push({ workflow, status });
  }
  stepFinished(workflow: string, stepType: string, seconds: number): void {
    this.steps.push({ workflow, stepType, seconds });
  }
  reorgSeen(network: string, deep: boolean): void {
    this.reorgs.push({ network, deep });
  }
}
