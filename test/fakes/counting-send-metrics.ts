import type { SendMetrics } from '../../src/application/ports/send-metrics';
import type { SendOutcome } from '../../src/domain/journal/journal-event';

/** Counts what the send path reports, for tests. */
export class CountingSendMetrics implements SendMetrics {
  readonly outcomes: SendOutcome[] = [];
  replacements = 0;
  cancels = 0;
  resyncs = 0;
  refusals = 0;
  receiptFailures = 0;
  settled(outcome: SendOutcome): void {
    this.outcomes.push(outcome);
  }
  replaced(): void {
    this.replacements++;
  }
  cancelled(): void {
    this.cancels++;
  }
  nonceResynced(): void {
    this.resyncs++;
  }
  budgetRefused(): void {
    this.refusals++;
  }
  receiptReadFailed(): void {
    this.receiptFailures++;
  }
}
