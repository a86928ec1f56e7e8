import { Counter, Registry } from 'prom-client';
import type { SendMetrics } from '../../application/ports/send-metrics';
import type { SendOutcome } from '../../domain/journal/journal-event';

/**
 * The send path's counters for Prometheus, in their own registry (the HTTP server exports it beside its own on
 * /metrics). Counters restart at zero with the process, as Prometheus expects.
 */
export class PromSendMetrics implements SendMetrics {
  readonly registry = new Registry();
  private readonly sends = new Counter({
    name: 'chainflow_sends_total', help: 'Sends settled, by outcome (confirmed, reverted, dropped, expired, replaced)', labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly replacements = new Counter({
    name: 'chainflow_send_replacements_total', help: 'Transactions signed again at the same nonce with fees raised 12.5%', registers: [this.registry],
  });
  private readonly cancels = new Counter({
    name: 'chainflow_send_cancels_total', help: 'Zero-value cancels sent to free the nonce of an expired send', registers: [this.registry],
  });
  private readonly resyncs = new Counter({
    name: 'chainflow_nonce_resyncs_total', help: 'Nonce lanes synced with the chain again after a nonce error', registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'chainflow_budget_refusals_total', help: 'Sends refused by a budget cap before any broadcast', registers: [this.registry],
  });
  private readonly receiptFailures = new Counter({
    name: 'chainflow_receipt_read_failures_total', help: 'Receipt reads of sends in flight that no provider answered', registers: [this.registry],
  });

  settled(outcome: SendOutcome): void {
    this.sends.inc({ outcome });
  }

  replaced(): void {
    this.replacements.inc();
  }

  cancelled(): void {
    this.cancels.inc();
  }

  nonceResynced(): void {
    this.resyncs.inc();
  }

  budgetRefused(): void {
    this.refusals.inc();
  }

  receiptReadFailed(): void {
    this.receiptFailures.inc();
  }
}
