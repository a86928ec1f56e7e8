import { Counter, Histogram, Registry } from 'prom-client';
import type { EngineMetrics } from '../../application/ports/engine-metrics';
import type { RunEndStatus } from '../../domain/journal/journal-event';

/**
 * The engine's counters for Prometheus, in their own registry (the HTTP server exports it beside its own). What
 * this process did: another process counts its own, and Prometheus sums them.
 */
export class PromEngineMetrics implements EngineMetrics {
  readonly registry = new Registry();
  private readonly runs = new Counter({
    name: 'chainflow_runs_total', help: 'Runs this process ended, by workflow and end status', labelNames: ['workflow', 'status'],
    registers: [this.registry],
  });
  private readonly steps = new Histogram({
    name: 'chainflow_step_duration_seconds', help: 'Step attempts this process ran to their end (parks excluded), by workflow and step type',
    labelNames: ['workflow', 'step_type'],
    // From a local http_call to a send awaiting its confirmations.
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300], registers: [this.registry],
  });

  private readonly reorgs = new Counter({
    name: 'chainflow_reorgs_total', help: 'Reorgs this process rolled back (deep="true": deeper than finality_depth, not rolled back), by network',
    labelNames: ['network', 'deep'], registers: [this.registry],
  });

  runEnded(workflow: string, status: RunEndStatus): void {
    this.runs.inc({ workflow, status });
  }

  stepFinished(workflow: string, stepType: string, seconds: number): void {
    this.steps.observe({ workflow, step_type: stepType }, seconds);
  }

  reorgSeen(network: string, deep: boolean): void {
    this.reorgs.inc({ network, deep: String(deep) });
  }
}
