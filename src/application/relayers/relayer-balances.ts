import { inject, injectable, optional } from 'inversify';
import { Redactor } from '../../domain/redactor';
import { ChainMismatchError, ChainReader, ChainUnavailableError, type ChainTarget } from '../ports/chain';
import { Clock } from '../ports/clock';

/** Tuning of relayer balance reads. */
export interface RelayerReadOptions {
  /** How long a reading (a balance, or the failure to read one) is served from the cache, in ms. Default and maximum 15 000 (CONTRACT 9). */
  readonly cacheTtlMs?: number;
  /** Bound of one balance read over all of a network's providers, in ms: past it the caller gets an error. Default 3000. */
  readonly readTimeoutMs?: number;
}
export const RelayerReadOptions = Symbol('RelayerReadOptions');

/**
 * The chain reader balances are read through, bound in the composition root to a client whose per-call timeout
 * lets a second provider answer within the read bound.
 */
export const RelayerBalanceChain = Symbol('RelayerBalanceChain');

export const DEFAULT_BALANCE_TTL_MS = 15_000;
export const DEFAULT_BALANCE_READ_MS = 3_000;

/** A balance, or why it is unknown (one safe line: never a provider URL, never a key). */
export type BalanceReading = { readonly wei: bigint; readonly at: number } | { readonly error: string; readonly at: number };

interface Slot {
  reading?: BalanceReading;
  inflight?: Promise<BalanceReading>;
  /** Moves on each `forget`: a read begun before it must not fill the slot afterwards. */
  generation: number;
}

/**
 * Live balances of relayer addresses, the one place they are read. A reading is cached for `cacheTtlMs`;
 * concurrent asks for the same address share one read; each ask is answered within `readTimeoutMs` (a read still
 * running then goes on, and its answer serves the next ask). No read ever rejects: a failure is a reading too.
 */
@injectable()
export class RelayerBalances {
  private readonly ttlMs: number;
  private readonly boundMs: number;
  private readonly slots = new Map<string, Slot>();

  constructor(
    @inject(RelayerBalanceChain) private readonly chain: Pick<ChainReader, 'balance'>,
    @inject(Clock) private readonly clock: Clock,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(RelayerReadOptions) @optional() options: RelayerReadOptions = {},
  ) {
    this.ttlMs = Math.min(DEFAULT_BALANCE_TTL_MS, options.cacheTtlMs ?? DEFAULT_BALANCE_TTL_MS);
    this.boundMs = options.readTimeoutMs ?? DEFAULT_BALANCE_READ_MS;
    if (!(this.ttlMs >= 0) || !(this.boundMs > 0)) throw new Error('RelayerBalances: cacheTtlMs must be >= 0 and readTimeoutMs > 0');
  }

  /** The bound of one read, in ms. */
  get readTimeoutMs(): number {
    return this.boundMs;
  }

  /** A reading at most `cacheTtlMs` old: the cached one, else a fresh read, answered within the bound. */
  async read(target: ChainTarget, address: string): Promise<BalanceReading> {
    const slot = this.slot(target, address);
    if (slot.reading && this.fresh(slot.reading)) return slot.reading;
    const read = slot.inflight ?? this.start(slot, target, address);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<BalanceReading>((resolve) => {
      timer = setTimeout(() => resolve({ error: `${target.network}: no answer within ${this.boundMs} ms`, at: this.clock.now() }), this.boundMs);
    });
    try {
      return await Promise.race([read, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The last reading whatever its age (undefined before the first), without waiting: when it is older than the
   * cache allows, a read starts in the background for the next ask. For metrics, which must never wait on a chain.
   */
  peek(target: ChainTarget, address: string): BalanceReading | undefined {
    const slot = this.slot(target, address);
    if (!slot.inflight && !(slot.reading && this.fresh(slot.reading))) void this.start(slot, target, address);
    return slot.reading;
  }

  /** Forgets the cached reading of an address (its balance moved, e.g. by a top-up). */
  forget(target: ChainTarget, address: string): void {
    const slot = this.slots.get(keyOf(target, address));
    if (!slot) return;
    slot.generation += 1;
    slot.reading = undefined;
    slot.inflight = undefined;
  }

  private slot(target: ChainTarget, address: string): Slot {
    const key = keyOf(target, address);
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { generation: 0 };
      this.slots.set(key, slot);
    }
    return slot;
  }

  private fresh(reading: BalanceReading): boolean {
    return this.clock.now() - reading.at < this.ttlMs;
  }

  private start(slot: Slot, target: ChainTarget, address: string): Promise<BalanceReading> {
    const generation = slot.generation;
    const read = Promise.resolve().then(() => this.chain.balance(target, address)).then(
      (wei): BalanceReading => ({ wei, at: this.clock.now() }),
      (err: unknown): BalanceReading => ({ error: this.reason(target, err), at: this.clock.now() }),
    ).then((reading) => {
      if (slot.generation === generation) {
        slot.reading = reading;
        slot.inflight = undefined;
      }
      return reading;
    });
    slot.inflight = read;
    return read;
  }

  /**
   * ChainUnavailableError messages name the network and each provider by number, never by URL; ChainMismatchError's
   * name the network and both chain ids; anything else is not shown.
   */
  private reason(target: ChainTarget, err: unknown): string {
    const text = err instanceof ChainUnavailableError || err instanceof ChainMismatchError ? err.message : `${target.network}: balance read failed`;
    return this.redactor.redactText(text.replace(/[\r\n]+/g, ' '));
  }
}

function keyOf(target: ChainTarget, address: string): string {
  return `${target.network}\n${target.chainId}\n${address.toLowerCase()}`;
}
