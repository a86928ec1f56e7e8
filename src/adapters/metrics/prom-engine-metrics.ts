import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DriveOutcome, EngineMetrics } from '../../application/ports/engine-metrics';
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
  private readonly driven = new Counter({
    name: 'chainflow_runs_driven_total',
    help: 'Drives this process ran (a run claimed from the schedule or started here), by workflow and how the drive left the run (finished, parked, lost, gone)',
    labelNames: ['workflow', 'outcome'], registers: [this.registry],
  });
  private readonly held = new Gauge({
    name: 'chainflow_leases_held', help: 'Run leases this process holds now (the runs it is driving)', registers: [this.registry],
  });
  private readonly claims = new Counter({
    name: 'chainflow_leases_claimed_total', help: 'Run leases this process claimed from the schedule (due, parked or expired runs)',
    registers: [this.registry],
  });
  private readonly lost = new Counter({
    name: 'chainflow_leases_lost_total', help: 'Run leases of this process another driver took over (it ran past the lease), by workflow',
    labelNames: ['workflow'], registers: [this.registry],
  });
  private readonly claimLatency = new Histogram({
    name: 'chainflow_lease_claim_duration_seconds', help: 'How long one claim of due runs took this process (the database round trip and its row locks)',
    // A claim is one statement: a millisecond on an idle database, up to seconds when its locks are contended.
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [this.registry],
  });

  constructor() {
    this.held.set(0);
    this.claims.inc(0);
  }

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

  runDriven(workflow: string, outcome: DriveOutcome): void {
    this.driven.inc({ workflow, outcome });
  }

  leasesHeld(count: number): void {
    this.held.set(count);
  }

  claimed(seconds: number, claimed: number): void {
    this.claimLatency.observe(seconds);
    this.claims.inc(claimed);
  }

  leaseLost(workflow: string): void {
    this.lost.inc({ workflow });
  }

  reorgSeen(network: string, deep: boolean): void {
    this.reorgs.inc({ network, deep: String(deep) });
  }
}
