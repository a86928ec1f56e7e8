import type { ProviderCheck } from '../../application/ports/chain';
import type { Logger } from '../../application/ports/logger';
import { ProviderFailure } from './json-rpc';

/** How long a provider that did not answer `eth_chainId` is reported unavailable before it is asked again. */
const RECHECK_MS = 15_000;

type Known = { readonly status: 'ok' | 'chain_mismatch'; readonly chainId: bigint } | { readonly status: 'unavailable'; readonly at: number };

/**
 * The chain id each provider serves, asked once per provider and process (CONTRACT 8.8): a call pays no extra
 * request once its provider is verified. A mismatch is final for the process and logged once, with the network
 * and the provider's number, never its URL (provider URLs carry API keys). Shared by every Web3Chain of a process,
 * so that the balance reader and the send path agree on which providers are usable.
 */
export class ProviderChainIds {
  private readonly known = new Map<string, Known>();
  private readonly asking = new Map<string, Promise<bigint>>();

  constructor(private readonly logger?: Logger) {}

  /**
   * Resolves when the provider serves `expected`; ProviderFailure otherwise: `chain_mismatch` (never used again),
   * or the failure of the `eth_chainId` request itself (not remembered: the next use asks again).
   */
  async verify(network: string, index: number, url: string, expected: number, ask: () => Promise<bigint>): Promise<void> {
    const key = `${expected}\n${url}`;
    const known = this.known.get(key);
    if (known?.status === 'ok') return;
    if (known?.status === 'chain_mismatch') throw mismatch(known.chainId, expected);
    let asking = this.asking.get(key);
    if (!asking) {
      asking = ask().finally(() => this.asking.delete(key));
      this.asking.set(key, asking);
    }
    let served: bigint;
    try {
      served = await asking;
    } catch (error) {
      this.known.set(key, { status: 'unavailable', at: Date.now() });
      throw error;
    }
    if (served === BigInt(expected)) {
      this.known.set(key, { status: 'ok', chainId: served });
      return;
    }
    if (this.known.get(key)?.status !== 'chain_mismatch') {
      this.known.set(key, { status: 'chain_mismatch', chainId: served });
      this.logger?.warn('provider serves another chain: not used', {
        network, provider: index + 1, chain_id: expected, provider_chain_id: served.toString(),
      });
    }
    throw mismatch(served, expected);
  }

  /** What is known of a provider without asking, or undefined when it should be asked (never, or unavailable a while ago). */
  peek(index: number, url: string, expected: number): ProviderCheck | undefined {
    const known = this.known.get(`${expected}\n${url}`);
    if (!known) return undefined;
    if (known.status === 'unavailable') return Date.now() - known.at < RECHECK_MS ? { provider: index + 1, status: 'unavailable' } : undefined;
    return { provider: index + 1, status: known.status, chainId: known.chainId.toString() };
  }
}

function mismatch(served: bigint, expected: number): ProviderFailure {
  return new ProviderFailure(`serves chain ${served}, not ${expected}`, 'chain_mismatch', served.toString());
}
