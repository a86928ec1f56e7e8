import { Gauge, type Registry } from 'prom-client';
import type { RelayerStatus } from '../../application/relayers/relayer-book';

/** One scrape reads the relayers once, however many gauges ask (prom-client collects them concurrently). */
const SNAPSHOT_MS = 1000;

/**
 * Wei as ether for a gauge: a float is fine for a threshold alert, never for accounting (the API keeps exact wei).
 * Split so that the float holds 18 significant digits' worth before the division, not the raw 78-digit integer.
 */
export function weiToEther(wei: bigint): number {
  const whole = wei / 10n ** 18n;
  const fraction = wei % 10n ** 18n;
  return Number(whole) + Number(fraction) / 1e18;
}

/**
 * Relayer gauges on `registry`, labelled by relayer and network, from `read` (cached balances: a scrape never
 * waits on a chain). Alert before a relayer runs dry on `chainflow_relayer_low_balance == 1` or
 * `chainflow_relayer_shortfall_ether > 0`, and on `chainflow_relayer_balance_up == 0` (its balance cannot be read).
 * A relayer whose balance was never read yet has no balance series.
 */
export function registerRelayerMetrics(registry: Registry, read: () => Promise<RelayerStatus[]>): void {
  let snapshot: { at: number; statuses: Promise<RelayerStatus[]> } | undefined;
  const statuses = (): Promise<RelayerStatus[]> => {
    const now = Date.now();
    if (!snapshot || now - snapshot.at > SNAPSHOT_MS) snapshot = { at: now, statuses: read() };
    return snapshot.statuses;
  };
  const labelNames = ['relayer', 'network'] as const;
  const gauge = (name: string, help: string, value: (s: RelayerStatus) => number | null): void => {
    new Gauge({
      name, help, labelNames, registers: [registry],
      async collect() {
        this.reset();
        for (const s of await statuses()) {
          const v = value(s);
          if (v !== null) this.set({ relayer: s.relayer, network: s.network }, v);
        }
      },
    });
  };
  gauge('chainflow_relayer_balance_ether', 'Relayer balance in the native unit (ether; a float: the API has exact wei)',
    (s) => (s.balanceWei === null ? null : weiToEther(s.balanceWei)));
  gauge('chainflow_relayer_low_balance', '1 when the relayer balance is below its low_balance threshold',
    (s) => (s.plan.lowBalance === null ? null : s.plan.lowBalance ? 1 : 0));
  gauge('chainflow_relayer_low_balance_threshold_ether', 'The relayer low_balance threshold in the native unit (ether)',
    (s) => (s.thresholdWei === null ? null : weiToEther(s.thresholdWei)));
  gauge('chainflow_relayer_shortfall_ether', 'What to add so the balance covers 7 days of projected gas plus the threshold (ether)',
    (s) => (s.plan.shortfallWei === null ? null : weiToEther(s.plan.shortfallWei)));
  gauge('chainflow_relayer_balance_up', '1 when the last balance read answered, 0 when no provider did',
    (s) => (s.balanceError !== null ? 0 : s.balanceWei !== null ? 1 : null));
}
