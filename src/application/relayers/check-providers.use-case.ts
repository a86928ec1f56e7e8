import { inject, injectable } from 'inversify';
import { ChainflowConfig } from '../config';
import { ChainReader, type ProviderCheck } from '../ports/chain';

/** One provider of a configured network: its number in the network's `rpc` list (from 1), never its URL. */
export interface ProviderHealth {
  readonly network: string;
  readonly provider: number;
  readonly status: ProviderCheck['status'];
  /** Serves the network's chain id (and answered). */
  readonly up: boolean;
}

/**
 * Compares each configured network's providers' chain id with its `chain_id` (CONTRACT 8.8): at start, so that a
 * mismatch is logged before any send, and for the `chainflow_provider_up` gauge. Asked once per provider and
 * process by the chain adapter; a provider that did not answer is asked again a while later.
 */
@injectable()
export class CheckProviders {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(ChainReader) private readonly reader: ChainReader,
  ) {}

  async execute(): Promise<ProviderHealth[]> {
    const networks = [...this.config.networks.values()];
    const checked = await Promise.all(networks.map(async (network) => {
      const checks = await this.reader.checkChain({ network: network.name, chainId: network.chainId, rpc: network.rpc });
      return checks.map((c): ProviderHealth => ({ network: network.name, provider: c.provider, status: c.status, up: c.status === 'ok' }));
    }));
    return checked.flat();
  }
}
