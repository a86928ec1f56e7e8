import { Gauge, type Registry } from 'prom-client';
import type { ProviderHealth } from '../../application/relayers/check-providers.use-case';

/**
 * `chainflow_provider_up{network,provider}`: 1 when the provider serves the network's chain id, 0 when it serves
 * another (never used: CONTRACT 8.8) or did not answer the check. `provider` is its number in the network's `rpc`
 * list, from 1: a provider URL carries an API key and is never a label. Alert on `chainflow_provider_up == 0`.
 */
export function registerProviderMetrics(registry: Registry, read: () => Promise<ProviderHealth[]>): void {
  new Gauge({
    name: 'chainflow_provider_up', help: '1 when the RPC provider serves the network chain_id, 0 when it serves another or does not answer',
    labelNames: ['network', 'provider'], registers: [registry],
    async collect() {
      this.reset();
      for (const p of await read()) this.set({ network: p.network, provider: String(p.provider) }, p.up ? 1 : 0);
    },
  });
}
