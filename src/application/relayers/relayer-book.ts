import { inject, injectable } from 'inversify';
import { fundingPlan, type FundingPlan } from '../../domain/relayers/funding-plan';
import { Redactor } from '../../domain/redactor';
import { ChainflowConfig, type RelayerConfig } from '../config';
import { ChainSender, type ChainTarget } from '../ports/chain';
import { RecentGasSpend } from './recent-gas-spend';
import { RelayerBalances, type BalanceReading } from './relayer-balances';

/** Everything the address book shows of one configured relayer, before formatting. */
export interface RelayerStatus {
  readonly relayer: string;
  readonly network: string;
  readonly chainId: number | null;
  /** Null when the signer gives none (missing or unusable); `balanceError` says why. */
  readonly address: string | null;
  readonly balanceWei: bigint | null;
  readonly balanceError: string | null;
  readonly thresholdWei: bigint | null;
  readonly recentGasWei: bigint;
  readonly plan: FundingPlan;
}

/** `read`: a balance at most the cache's age old, read when needed (bounded); `cached`: whatever is cached, never waiting on a chain. */
export type BalanceMode = 'read' | 'cached';

type Derived = { readonly address: string } | { readonly error: string };

/**
 * The configured relayers as the address book sees them: address derived from the signer (once per process),
 * live balance (RelayerBalances), recent gas spend (RecentGasSpend) and the funding plan.
 */
@injectable()
export class RelayerBook {
  private readonly addresses = new Map<string, Promise<Derived>>();

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(ChainSender) private readonly signers: Pick<ChainSender, 'address'>,
    @inject(RelayerBalances) private readonly balances: RelayerBalances,
    @inject(RecentGasSpend) private readonly spend: RecentGasSpend,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  /** Configured relayer names (of one network when named), ascending. */
  names(network?: string): string[] {
    return [...this.config.relayers.values()].filter((r) => network === undefined || r.network === network).map((r) => r.name).sort();
  }

  /** The status of each named relayer (configured ones only), in the order asked. */
  async statuses(names: readonly string[], mode: BalanceMode): Promise<RelayerStatus[]> {
    return Promise.all(names.flatMap((name) => {
      const relayer = this.config.relayers.get(name);
      return relayer ? [this.status(relayer, mode)] : [];
    }));
  }

  /** The network target of a relayer; undefined when its network is not configured. */
  target(relayer: RelayerConfig): ChainTarget | undefined {
    const network = this.config.networks.get(relayer.network);
    return network ? { network: network.name, chainId: network.chainId, rpc: network.rpc } : undefined;
  }

  /** The address of a relayer's signer, or why there is none (a safe line: never the key). */
  addressOf(relayer: RelayerConfig): Promise<Derived> {
    let derived = this.addresses.get(relayer.name);
    if (!derived) {
      const signer = relayer.signer;
      derived = signer === undefined
        ? Promise.resolve({ error: 'no signer configured: the address is unknown' })
        : Promise.resolve().then(() => this.signers.address(signer)).then(
          (address) => ({ address }),
          (err: unknown) => ({ error: `the signer cannot be used (${this.redactor.redactText(err instanceof Error ? err.message : String(err))})` }),
        );
      this.addresses.set(relayer.name, derived);
    }
    return derived;
  }

  private async reading(derived: Derived, target: ChainTarget | undefined, relayer: RelayerConfig, mode: BalanceMode): Promise<BalanceReading | { error: string } | undefined> {
    if ('error' in derived) return derived;
    if (!target) return { error: `network '${relayer.network}' is not configured` };
    return mode === 'read' ? this.balances.read(target, derived.address) : this.balances.peek(target, derived.address);
  }

  private async status(relayer: RelayerConfig, mode: BalanceMode): Promise<RelayerStatus> {
    const target = this.target(relayer);
    const derived = await this.addressOf(relayer);
    // The balance read starts before the ledger is asked: its bound is the request's.
    const [reading, recent] = await Promise.all([this.reading(derived, target, relayer, mode), this.spend.of(relayer.name)]);
    const balanceWei = reading && 'wei' in reading ? reading.wei : null;
    const thresholdWei = relayer.lowBalanceWei ?? null;
    return {
      relayer: relayer.name,
      network: relayer.network,
      chainId: target?.chainId ?? null,
      address: 'address' in derived ? derived.address : null,
      balanceWei,
      balanceError: reading && 'error' in reading ? reading.error : null,
      thresholdWei,
      recentGasWei: recent.gasWei,
      plan: fundingPlan({ balanceWei, thresholdWei, recentGasWei: recent.gasWei, oldestAgoMs: recent.oldestAgoMs }),
    };
  }
}
