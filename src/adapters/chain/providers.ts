import { ChainMismatchError, ChainUnavailableError, type ChainTarget } from '../../application/ports/chain';
import type { Logger } from '../../application/ports/logger';
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
  /** Told of each failover (a provider failed a request, the next one or the next pass takes it); none: silent. */
  readonly logger?: Logger;
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

/** Every provider failed each request of a call, in every pass: `failures` lists the last pass, by provider number. */
class Exhausted extends ProviderFailure {
  constructor(readonly failures: string) {
    super(failures);
  }
}

/**
 * The requests of one call, each sent to the network's providers in order until one answers; when all failed, the
 * list is tried again after a pause that doubles each pass, within the call's passes and time. Failing over per
 * request, not per call: a call of two requests (eth_call then eth_estimateGas) at a 30% fault rate would
 * otherwise fail a whole pass half the time.
 */
export class Requests {
  constructor(
    private readonly target: ChainTarget,
    private readonly chainIds: ProviderChainIds,
    private readonly policy: RetryPolicy,
    private readonly until: number,
  ) {}

  /**
   * A request whose JSON-RPC error answers are all this provider's trouble (reads: another may answer). `parse`
   * checks the answer: a malformed one (ProviderFailure) is this provider's trouble too.
   */
  read<T = unknown>(method: string, params: readonly unknown[], parse: (result: unknown) => T = (result) => result as T): Promise<T> {
    return this.send(async (provider) => parse(await provider.read(method, params)));
  }

  /**
   * A request whose verdict matters: an error answer that judged it (a revert, a refusal; or one `keep` accepts)
   * rejects as RpcError; a rate limit or the provider's own trouble goes to the next provider.
   */
  call<T = unknown>(
    method: string, params: readonly unknown[], parse: (result: unknown) => T = (result) => result as T, keep: (error: RpcError) => boolean = () => false,
  ): Promise<T> {
    return this.send(async (provider) => {
      let result: unknown;
      try {
        result = await provider.call(method, params);
      } catch (error) {
        if (!(error instanceof RpcError) || keep(error)) throw error;
        const kind = classifyRpcError(error);
        if (kind === 'revert' || kind === 'refusal') throw error;
        throw failureOf(error);
      }
      return parse(result);
    });
  }

  private async send<T>(request: (provider: Provider) => Promise<T>): Promise<T> {
    let failures: string[] = [];
    for (let round = 0; round < this.policy.rounds; round++) {
      if (round > 0) {
        const pause = backoff(this.policy.backoffMs, round);
        if (Date.now() + pause >= this.until) break;
        await sleep(pause);
      }
      failures = [];
      const served: string[] = [];
      for (const [index, url] of this.target.rpc.entries()) {
        if (Date.now() >= this.until) {
          failures.push(`provider ${index + 1}: not tried, time is up`);
          break;
        }
        const provider = new Provider(index, url, this.policy.timeoutMs, this.until, this.target.rpc);
        try {
          await provider.verify(this.target, this.chainIds);
          return await request(provider);
        } catch (error) {
          if (!(error instanceof ProviderFailure)) throw error;
          if (error.kind === 'chain_mismatch') served.push(error.servedChainId ?? '?');
          failures.push(`provider ${index + 1}: ${error.reason}`);
          // The provider's number, never its URL (provider URLs carry API keys); a mismatch is logged once, apart.
          if (error.kind !== 'chain_mismatch') {
            this.policy.logger?.warn('provider failed over', {
              network: this.target.network, provider: index + 1, reason: error.reason,
              next: index + 1 < this.target.rpc.length ? `provider ${index + 2}` : 'next pass',
            });
          }
        }
      }
      if (served.length === this.target.rpc.length) throw new ChainMismatchError(this.target.network, this.target.chainId, served);
    }
    throw new Exhausted(failures.join('; '));
  }
}

/**
 * Runs `work` with the requests of one call to `target`'s providers (each failing over and retried, see Requests),
 * all within `policy.budgetMs` and `deadline`. ChainMismatchError when every provider serves another chain,
 * ChainUnavailableError when none answered a request; any other error is the answer (a revert, a refusal).
 */
export async function overProviders<T>(
  target: ChainTarget, chainIds: ProviderChainIds, policy: RetryPolicy, deadline: number, work: (requests: Requests) => Promise<T>,
  unavailable: (failures: string) => string = (failures) => `no provider answered (${failures})`,
): Promise<T> {
  if (target.rpc.length === 0) throw new ChainUnavailableError(target.network, 'no RPC provider configured');
  const requests = new Requests(target, chainIds, policy, Math.min(deadline, Date.now() + policy.budgetMs));
  try {
    return await work(requests);
  } catch (error) {
    if (error instanceof Exhausted) throw new ChainUnavailableError(target.network, unavailable(error.failures));
    if (error instanceof ProviderFailure) throw new ChainUnavailableError(target.network, unavailable(error.reason));
    throw error;
  }
}

/** Exponential with full jitter in its upper half: processes that failed together do not come back together. */
function backoff(baseMs: number, round: number): number {
  const ceiling = Math.min(MAX_PAUSE_MS, baseMs * 2 ** (round - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
