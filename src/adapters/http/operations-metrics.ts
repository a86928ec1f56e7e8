import { Gauge, collectDefaultMetrics, type Registry } from 'prom-client';
import type { OperationsGauges } from '../../application/ports/operations-gauges';

/**
 * prom-client's default process metrics (CPU, memory, event loop, handles) and `chainflow_build_info{version}`,
 * always 1: join it on `instance` to see which version each process runs.
 */
export function registerProcessMetrics(registry: Registry, version: string): void {
  collectDefaultMetrics({ register: registry });
  new Gauge({ name: 'chainflow_build_info', help: 'Always 1; the version this process runs', labelNames: ['version'], registers: [registry] })
    .set({ version }, 1);
}

/**
 * Depths read from storage at each scrape, the same in every process (alert on one instance, or take the max):
 * `chainflow_runs_waiting{workflow,wait_kind}`, `chainflow_sends_in_flight{relayer}` and
 * `chainflow_event_lag_blocks{workflow}` (event workflows that polled at least once). A group that empties
 * disappears rather than staying at its last value.
 */
export function registerOperationsMetrics(registry: Registry, gauges: OperationsGauges): void {
  new Gauge({
    name: 'chainflow_runs_waiting', help: 'Runs parked now, by workflow and what they wait for', labelNames: ['workflow', 'wait_kind'], registers: [registry],
    async collect() {
      const rows = await gauges.runsWaiting();
      this.reset();
      for (const r of rows) this.set({ workflow: r.workflow, wait_kind: r.waitKind }, r.runs);
    },
  });
  new Gauge({
    name: 'chainflow_sends_in_flight', help: 'Live sends not settled yet, by relayer', labelNames: ['relayer'], registers: [registry],
    async collect() {
      const rows = await gauges.sendsInFlight();
      this.reset();
      for (const r of rows) this.set({ relayer: r.relayer }, r.sends);
    },
  });
  new Gauge({
    name: 'chainflow_event_lag_blocks', help: 'Blocks between the head an event workflow last read and its cursor', labelNames: ['workflow'], registers: [registry],
    async collect() {
      const rows = await gauges.eventLag();
      this.reset();
      for (const r of rows) this.set({ workflow: r.workflow }, r.lagBlocks);
    },
  });
}
