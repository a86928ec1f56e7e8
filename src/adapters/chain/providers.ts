import { ChainMismatchError, ChainUnavailableError, type ChainTarget } from '../../application/ports/chain';
import type { ProviderChainIds } from './chain-ids';
import { classifyRpcError } from './classify';
import { ProviderFailure, quantity, RpcError, rpcCall } from './json-rpc';

/** How hard a network's providers are tried before ChainUnavailableError. */
export interface RetryPolicy {
  /** Bound of each provider call, in ms. */
  readonly timeoutMs: number;
  /** Passes over the whole provider list (the first included). */
  readonly rounds: number;
  /** Pause before the second pass, in ms; doubled for each further pass, with jitter. */
  readonly backoffMs: number;
  /** Bound of all passes together, in ms (a call under way when it runs out is cut to what is left). */
  readonly budgetMs: number;
}

/** The longest pause between two passes, whatever the round. */
const MAX_PAUSE_MS = 2_000;

/** One provider, its calls bounded by the per-call timeout and by an overall deadline. */
export class Provider {
  constructor(
    readonly index: number,
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly deadline: number,
    private readonly secrets: readonly string[],
  ) {}

  call(method: string, params: readonly unknown[]): Promise<unknown> {
    const remaining = this.deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new ProviderFailure('time is up'));
    return rpcCall(this.url, method, params, Math.min(this.timeoutMs, remaining), this.secrets);
  }

  /** A call whose JSON-RPC error answer counts as a failure of this provider (reads: another may answer). */
  async read(method: string, params: readonly unknown[]): Promise<unknown> {
    try {
      return await this.call(method, params);
    } catch (error) {
      if (error instanceof RpcError) throw failureOf(error);
      throw error;
    }
  }

  /** Resolves once this provider is known to serve the target's chain (one `eth_chainId` per provider and process). */
  verify(target: ChainTarget, chainIds: ProviderChainIds): Promise<void> {
    return chainIds.verify(target.network, this.index, this.url, target.chainId, async () => quantity(await this.read('eth_chainId', []), 'chain id'));
  }
}

/** A JSON-RPC error that did not judge the request, as this provider's failure (rate limit or trouble). */
export function failureOf(error: RpcError): ProviderFailure {
  const kind = classifyRpcError(error) === 'rate_limited' ? 'rate_limited' : 'unavailable';
  const what = kind === 'rate_limited' ? 'rate limited' : 'JSON-RPC error';
  return new ProviderFailure(`${what}${error.code === undefined ? '' : ` ${error.code}`}`, kind);
}

/**
 * Runs `work` against each provider of `target` in order until one answers. A provider that fails, is rate-limited
 * or times out (ProviderFailure) hands over to the next; when all did, the list is tried again after a pause that
 * doubles each pass, within `policy.rounds` passes and `policy.budgetMs`. A provider serving another chain is
 * skipped; ChainMismatchError when all do, ChainUnavailableError when none answered. Any other error is the
 * answer (a revert, a refusal) and ends the call at once.
 */
export async function overProviders<T>(
  target: ChainTarget, chainIds: ProviderChainIds, policy: RetryPolicy, deadline: number, work: (provider: Provider) => Promise<T>,
  unavailable: (failures: string) => string = (failures) => `no provider answered (${failures})`,
): Promise<T> {
  if (target.rpc.length === 0) throw new ChainUnavailableError(target.network, 'no RPC provider configured');
  const until = Math.min(deadline, Date.now() + policy.budgetMs);
  let failures: string[] = [];
  for (let round = 0; round < policy.rounds; round++) {
    if (round > 0) {
      const pause = backoff(policy.backoffMs, round);
      if (Date.now() + pause >= until) break;
      await sleep(pause);
    }
    failures = [];
    const served: string[] = [];
    for (const [index, url] of target.rpc.entries()) {
      if (Date.now() >= until) {
        failures.push(`provider ${index + 1}: not tried, time is up`);
        break;
      }
      const provider = new Provider(index, url, policy.timeoutMs, until, target.rpc);
      try {
        await provider.verify(target, chainIds);
        return await work(provider);
      } catch (error) {
        if (!(error instanceof ProviderFailure)) throw error;
        if (error.kind === 'chain_mismatch') served.push(error.servedChainId ?? '?');
        failures.push(`provider ${index + 1}: ${error.reason}`);
      }
    }
    if (served.length === target.rpc.length) throw new ChainMismatchError(target.network, target.chainId, served);
  }
  throw new ChainUnavailableError(target.network, unavailable(failures.join('; ')));
}

/** Exponential with full jitter in its upper half: processes that failed together do not come back together. */
function backoff(baseMs: number, round: number): number {
  const ceiling = Math.min(MAX_PAUSE_MS, baseMs * 2 ** (round - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
