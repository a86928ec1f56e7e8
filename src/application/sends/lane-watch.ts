import { inject, injectable } from 'inversify';
import { ChainflowConfig, DEFAULT_ENGINE_CONFIG } from '../config';
import { ChainReader } from '../ports/chain';
import { Clock } from '../ports/clock';
import type { RelayerAccount } from './relayers';

interface Reading {
  readonly value: Promise<bigint>;
  /** When it was asked, on the injected clock and on the process's own (a test's fixed clock never moves by itself). */
  readonly atClock: number;
  readonly atReal: number;
}

/**
 * What the chain says of a relayer's lane (CONTRACT 8.7, "a stuck send costs a bounded number of provider requests"):
 * its mined nonce (`latest`) and the head block, each read at most once per engine `poll_interval` per lane and shared
 * by every send of the lane in flight, however many. A send whose nonce the mined nonce does not cover is not mined,
 * so nobody asks for its receipt. A broadcast from this process makes the next read go to the chain (its own sends
 * are what moves the lane), so that cost follows the sends made, not the sends waiting.
 */
@injectable()
export class LaneWatch {
  private readonly pollMs: number;
  private readonly latests = new Map<string, Reading>();
  private readonly heads = new Map<string, Reading>();

  constructor(
    @inject(ChainflowConfig) config: ChainflowConfig,
    @inject(ChainReader) private readonly reader: ChainReader,
    @inject(Clock) private readonly clock: Clock,
  ) {
    this.pollMs = (config.engine ?? DEFAULT_ENGINE_CONFIG).pollMs;
  }

  /**
   * The lane's mined nonce: transactions of the relayer in blocks. A reading taken at or before `notBefore` (epoch ms:
   * a send's newest broadcast, which it cannot tell about) is not reused.
   */
  async latest(account: RelayerAccount, notBefore = Number.NEGATIVE_INFINITY): Promise<number> {
    const key = laneKey(account);
    if ((this.latests.get(key)?.atClock ?? Number.POSITIVE_INFINITY) <= notBefore) this.latests.delete(key);
    return Number(await this.read(this.latests, key, async () => BigInt(await this.reader.nonce(account.target, account.address, 'latest'))));
  }

  /** The network's head block. */
  head(account: RelayerAccount): Promise<bigint> {
    return this.read(this.heads, account.network.name, () => this.reader.blockNumber(account.target));
  }

  /** Something of the lane was broadcast: its mined nonce is asked afresh next time. */
  moved(account: RelayerAccount): void {
    this.latests.delete(laneKey(account));
  }

  /**
   * Waits (at most `timeoutMs`) until the lane's mined nonce covers `nonce`, looking once per poll interval, shared
   * with every other look at the lane. True when it does.
   */
  async mined(account: RelayerAccount, nonce: number, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      try {
        if ((await this.latest(account)) > nonce) return true;
      } catch {
        // No provider answered: the send's next look decides.
        return false;
      }
      const reading = this.latests.get(laneKey(account));
      const wait = Math.min(deadline - performance.now(), reading ? reading.atReal + this.pollMs - performance.now() : 0);
      if (performance.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.max(10, wait)));
    }
  }

  private read(cache: Map<string, Reading>, key: string, ask: () => Promise<bigint>): Promise<bigint> {
    const known = cache.get(key);
    const now = this.clock.now();
    if (known && now - known.atClock < this.pollMs && performance.now() - known.atReal < this.pollMs) return known.value;
    const value = ask();
    const reading = { value, atClock: now, atReal: performance.now() };
    cache.set(key, reading);
    // A failed read is not kept: the next look asks again.
    value.catch(() => {
      if (cache.get(key) === reading) cache.delete(key);
    });
    return value;
  }
}

function laneKey(account: RelayerAccount): string {
  return `${account.lane.relayer}\u0000${account.lane.network}`;
}
