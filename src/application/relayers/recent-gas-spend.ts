import { inject, injectable, optional } from 'inversify';
import { RECENT_SPEND_WINDOW_MS } from '../../domain/relayers/funding-plan';
import { ChainflowConfig } from '../config';
import { Clock } from '../ports/clock';
import { SpendLedger } from '../ports/spend-ledger';
import { DEFAULT_BALANCE_TTL_MS, RelayerReadOptions } from './relayer-balances';

/** A relayer's gas spend recorded in the recent window, and how long ago its oldest entry of that window was recorded. */
export interface RecentSpend {
  readonly gasWei: bigint;
  /** Null when the window holds no entry of the relayer. */
  readonly oldestAgoMs: number | null;
}

interface Snapshot {
  readonly at: number;
  readonly spend: ReadonlyMap<string, { gasWei: bigint; oldestAt: number }>;
}

/**
 * The ledger's gas spend of the last RECENT_SPEND_WINDOW_MS per configured relayer, from its rollups (one summary
 * over the configured relayers), plus one indexed read per spending relayer for its oldest entry in the window. Kept for
 * the balance cache's time (the funding plan moves by the minute, not the millisecond); concurrent asks share a read.
 */
@injectable()
export class RecentGasSpend {
  private readonly ttlMs: number;
  private snapshot: Snapshot | undefined;
  private inflight: Promise<Snapshot> | undefined;

  private readonly relayers: readonly string[];

  constructor(
    @inject(ChainflowConfig) config: ChainflowConfig,
    @inject(SpendLedger) private readonly ledger: SpendLedger,
    @inject(Clock) private readonly clock: Clock,
    @inject(RelayerReadOptions) @optional() options: RelayerReadOptions = {},
  ) {
    this.ttlMs = Math.min(DEFAULT_BALANCE_TTL_MS, options.cacheTtlMs ?? DEFAULT_BALANCE_TTL_MS);
    this.relayers = [...config.relayers.keys()];
  }

  /** The recent spend of a configured relayer (zero when the window holds none of its entries). */
  async of(relayer: string): Promise<RecentSpend> {
    let snapshot = this.snapshot;
    if (!snapshot || this.clock.now() - snapshot.at >= this.ttlMs) {
      const pending = (this.inflight ??= this.read());
      try {
        snapshot = await pending;
        this.snapshot = snapshot;
      } finally {
        if (this.inflight === pending) this.inflight = undefined;
      }
    }
    const s = snapshot.spend.get(relayer);
    return s ? { gasWei: s.gasWei, oldestAgoMs: Math.max(0, this.clock.now() - s.oldestAt) } : { gasWei: 0n, oldestAgoMs: null };
  }

  private async read(): Promise<Snapshot> {
    const at = this.clock.now();
    const since = at - RECENT_SPEND_WINDOW_MS;
    const gas = new Map<string, bigint>();
    if (this.relayers.length) {
      for (const c of await this.ledger.totals({ relayers: this.relayers, since })) gas.set(c.relayer, (gas.get(c.relayer) ?? 0n) + c.gasSpendWei);
    }
    const spend = new Map<string, { gasWei: bigint; oldestAt: number }>();
    await Promise.all([...gas].map(async ([relayer, gasWei]) => {
      spend.set(relayer, { gasWei, oldestAt: (await this.oldest(relayer, since)) ?? at });
    }));
    return { at, spend };
  }

  /** When the relayer's oldest entry since `since` was recorded. */
  private async oldest(relayer: string, since: number): Promise<number | undefined> {
    for await (const page of this.ledger.scan({ relayers: [relayer], since }, 1)) return page[0]?.recordedAt;
    return undefined;
  }
}
