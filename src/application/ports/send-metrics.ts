import type { SendOutcome } from '../../domain/journal/journal-event';

/** What an operator alerts on about sends (counters; the metrics adapter exports them on /metrics). */
export interface SendMetrics {
  /** A send settled (or, `refused`/`failed`, ended before any transaction landed). */
  settled(outcome: SendOutcome): void;
  /** A transaction was signed again at the same nonce with raised fees. */
  replaced(): void;
  /** A zero-value cancel was sent to free an expired send's nonce. */
  cancelled(): void;
  /** A relayer's nonce lane was synced with the chain again after a nonce error. */
  nonceResynced(): void;
  /** The gas budget cap (or a value cap) refused a send before any broadcast. */
  budgetRefused(): void;
  /** A receipt read failed (no provider answered); a landed send may be missing from the ledger meanwhile. */
  receiptReadFailed(): void;
}
export const SendMetrics = Symbol('SendMetrics');

/** Counts nothing (tools that expose no metrics). */
export const NO_SEND_METRICS: SendMetrics = {
  settled: () => undefined, replaced: () => undefined, cancelled: () => undefined, nonceResynced: () => undefined,
  budgetRefused: () => undefined, receiptReadFailed: () => undefined,
};
