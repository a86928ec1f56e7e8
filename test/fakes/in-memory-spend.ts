import { RESERVATION_UNJOURNALED_MS, type BudgetReservations, type ReservationClaim } from '../../src/application/ports/budget-reservations';
import type { LedgerAppendResult, PendingReceipts, SpendFilter, SpendLedger } from '../../src/application/ports/spend-ledger';
import type { SendAttempt } from '../../src/domain/send-attempt';
import { MAX_UINT256, type LedgerChange, type LedgerEntry, type LedgerReorg, type PendingReceipt } from '../../src/domain/spend/ledger-entry';
import { scopeValue } from '../../src/domain/spend/budget';
import { addTotals, zeroTotals, type ComboTotals } from '../../src/domain/spend/spend-totals';

const keyOf = (e: { stepRunId: string; txHash: string | null }): string => `${e.stepRunId}\n${e.txHash ?? ''}`;

/** Whether an entry falls inside a filter (a name list matches any of its names; an empty list matches none). */
export function matchesSpendFilter(e: LedgerEntry, f: SpendFilter): boolean {
  return (f.workflows === undefined || f.workflows.includes(e.workflow))
    && (f.relayers === undefined || f.relayers.includes(e.relayer))
    && (f.networks === undefined || f.networks.includes(e.network))
    && (f.since === undefined || e.recordedAt >= f.since)
    && (f.until === undefined || e.recordedAt <= f.until);
}

function checkAmounts(e: LedgerEntry): void {
  for (const amount of [e.gasSpendWei, e.valueWei]) {
    if (amount < 0n || amount > MAX_UINT256) throw new RangeError('amount outside uint256');
  }
}

interface Stored {
  readonly seq: number;
  readonly entry: LedgerEntry;
}

interface Owed {
  readonly pending: PendingReceipt;
  state: 'pending' | 'failed';
  error: string | null;
  claimedBy?: string;
  claimedUntil?: number;
}

/**
 * The spend ledger and its pending receipt reads in memory, for use-case tests. Behaves like
 * KnexSpendLedger (test/contract/spend.contract.ts): idempotent by (step_run_id, tx_hash) among the entries that count,
 * atomic appends, ties in time kept in insertion order; a reorged entry stays listed and counts in no sum. An InMemoryJournal given this ledger (`new InMemoryJournal({ spend })`)
 * records the ledger's share of landed settles with each append, as the knex journal writer does.
 */
export class InMemorySpendLedger implements SpendLedger, PendingReceipts {
  private readonly stored: Stored[] = [];
  private readonly keys = new Set<string>();
  private readonly owed = new Map<string, Owed>();
  private seq = 0;

  async append(entries: readonly LedgerEntry[]): Promise<LedgerAppendResult> {
    return this.appendNow(entries);
  }

  /**
   * What the journal writer does with an append's ChangeSet.ledger, synchronously and all or nothing: the
   * entries (idempotent) and the pending reads (a read already owed stays as it is).
   */
  recordSettles(changes: readonly LedgerChange[]): void {
    for (const s of changes) {
      if (s.kind === 'entry') this.appendNow([s.entry]);
      if (s.kind === 'reorged') this.reorgEntry(s.reorg);
      if (s.kind !== 'pending') continue;
      const key = keyOf(s.pending);
      if (!this.owed.has(key)) this.owed.set(key, { pending: { ...s.pending }, state: 'pending', error: null });
    }
  }

  /** As the knex ledger's reorgEntry: the counting entry of that landing leaves every sum, once; a read owed goes. */
  reorgEntry(reorg: LedgerReorg): LedgerEntry[] {
    const key = keyOf(reorg);
    this.owed.delete(key);
    const hit = this.stored.find((s) => keyOf(s.entry) === key && s.entry.reorged !== true
      && (s.entry.blockHash === undefined || s.entry.blockHash === null || s.entry.blockHash === reorg.removedBlockHash.toLowerCase()));
    if (!hit) return [];
    const index = this.stored.indexOf(hit);
    this.stored[index] = { seq: hit.seq, entry: { ...hit.entry, reorged: true } };
    this.keys.delete(key);
    return [{ ...hit.entry, reorged: true }];
  }

  private appendNow(entries: readonly LedgerEntry[]): LedgerAppendResult {
    const seen = new Set(this.keys);
    const fresh: LedgerEntry[] = [];
    for (const e of entries) {
      const key = keyOf(e);
      if (seen.has(key)) continue;
      seen.add(key);
      checkAmounts(e);
      const { reorged: _ignored, ...counting } = e;
      fresh.push(counting);
    }
    for (const e of fresh) {
      this.keys.add(keyOf(e));
      this.stored.push({ seq: ++this.seq, entry: e });
    }
    return { written: fresh.length, duplicates: entries.length - fresh.length };
  }

  async totals(filter: SpendFilter): Promise<ComboTotals[]> {
    const combos = new Map<string, ComboTotals>();
    for (const { entry: e } of this.stored) {
      if (e.reorged === true || !matchesSpendFilter(e, filter)) continue;
      const key = `${e.workflow}\n${e.relayer}\n${e.network}`;
      const combo = combos.get(key) ?? combos.set(key, { workflow: e.workflow, relayer: e.relayer, network: e.network, ...zeroTotals() }).get(key)!;
      addTotals(combo, {
        txCount: 1, gasSpendWei: e.gasSpendWei, valueWei: e.valueWei,
        revertedCount: e.reverted ? 1 : 0, revertedGasWei: e.reverted ? e.gasSpendWei : 0n,
      });
    }
    return [...combos.values()];
  }

  async latest(filter: SpendFilter, limit: number): Promise<LedgerEntry[]> {
    if (limit <= 0) return [];
    return this.ordered(filter).reverse().slice(0, limit);
  }

  async *scan(filter: SpendFilter, pageSize: number): AsyncIterable<LedgerEntry[]> {
    const all = this.ordered(filter);
    for (let i = 0; i < all.length; i += pageSize) yield all.slice(i, i + pageSize);
  }

  /** Filtered entries, oldest first (ties: insertion order). */
  private ordered(filter: SpendFilter): LedgerEntry[] {
    return this.stored
      .filter((s) => matchesSpendFilter(s.entry, filter))
      .sort((a, b) => a.entry.recordedAt - b.entry.recordedAt || a.seq - b.seq)
      .map((s) => ({ ...s.entry }));
  }

  async pending(limit: number): Promise<PendingReceipt[]> {
    return [...this.owed.values()]
      .filter((o) => o.state === 'pending')
      .sort((a, b) => a.pending.recordedAt - b.pending.recordedAt)
      .slice(0, limit)
      .map((o) => ({ ...o.pending }));
  }

  async claim(owner: string, now: number, claimUntil: number, limit: number): Promise<PendingReceipt[]> {
    const free = (o: Owed): boolean => o.claimedBy === undefined || o.claimedBy === owner || (o.claimedUntil ?? 0) < now;
    const taken = [...this.owed.values()]
      .filter((o) => o.state === 'pending' && free(o))
      .sort((a, b) => a.pending.recordedAt - b.pending.recordedAt)
      .slice(0, limit);
    for (const o of taken) Object.assign(o, { claimedBy: owner, claimedUntil: claimUntil });
    return taken.map((o) => ({ ...o.pending }));
  }

  async complete(pending: PendingReceipt, entry: LedgerEntry): Promise<void> {
    this.appendNow([entry]);
    this.owed.delete(keyOf(pending));
  }

  async fail(pending: PendingReceipt, reason: string): Promise<void> {
    const owed = this.owed.get(keyOf(pending));
    if (!owed) return;
    owed.state = 'failed';
    owed.error = reason;
  }

  async counts(): Promise<{ pending: number; gaps: number }> {
    const all = [...this.owed.values()];
    return { pending: all.filter((o) => o.state === 'pending').length, gaps: all.filter((o) => o.state === 'failed').length };
  }

  // ---- test helpers ----

  /** Every entry, oldest first. */
  all(): LedgerEntry[] {
    return this.ordered({});
  }

  /** Why each failed read failed (ledger gaps). */
  gapReasons(): string[] {
    return [...this.owed.values()].filter((o) => o.state === 'failed').map((o) => o.error ?? '');
  }
}

interface Reservation {
  readonly sendId: string;
  readonly budget: string;
  /** '' for native value. */
  readonly token: string;
  readonly amount: bigint;
  readonly at: number;
}

/** What the fake reads of the journal: a send's projected state, by id. */
export interface SendLookup {
  sendState(sendId: string): SendAttempt | undefined;
}

/**
 * The value caps' reservations in memory, as KnexBudgetReservations keeps them: a reservation counts by its send's
 * state in the journal's send projection, and the ledger's recorded value comes from the in-memory ledger. Each
 * `reserve` runs alone (one at a time, as the knex adapter's write lock makes them).
 */
export class InMemoryBudgetReservations implements BudgetReservations {
  private rows: Reservation[] = [];
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly sends: SendLookup, private readonly ledger: InMemorySpendLedger) {}

  /** Over a journal and the ledger it feeds (a fresh, empty ledger when none is given). */
  static over(journal: SendLookup & { readonly spendLedger?: InMemorySpendLedger }, ledger?: InMemorySpendLedger): InMemoryBudgetReservations {
    return new InMemoryBudgetReservations(journal, ledger ?? journal.spendLedger ?? new InMemorySpendLedger());
  }

  reserve(sendId: string, at: number, claims: readonly ReservationClaim[], decide: (counted: readonly bigint[]) => boolean): Promise<boolean> {
    const result = this.turn.then(() => this.reserveNow(sendId, at, claims, decide));
    this.turn = result.catch(() => undefined);
    return result;
  }

  async release(sendId: string): Promise<void> {
    this.rows = this.rows.filter((r) => r.sendId !== sendId);
  }

  private async reserveNow(sendId: string, at: number, claims: readonly ReservationClaim[], decide: (counted: readonly bigint[]) => boolean): Promise<boolean> {
    const pending = new Set((await this.ledger.pending(Number.MAX_SAFE_INTEGER)).map((p) => p.stepRunId));
    const live = (r: Reservation): boolean => {
      const send = this.sends.sendState(r.sendId);
      if (!send) return r.at >= at - RESERVATION_UNJOURNALED_MS;
      if (send.status !== 'settled') return true;
      return r.token === '' ? pending.has(send.stepRunId) : send.outcome === 'confirmed';
    };
    const counted = claims.map(() => 0n);
    const others = this.rows.filter((r) => r.sendId !== sendId);
    for (const r of others) {
      if (!live(r)) continue;
      claims.forEach((c, i) => {
        if (c.budget === r.budget && (c.token ?? '') === r.token && (!c.token || r.at >= c.since)) counted[i]! += r.amount;
      });
    }
    for (const [i, c] of claims.entries()) {
      if (c.ledger) counted[i]! += scopeValue(await this.ledger.totals({ since: c.since, until: at }), c.ledger);
    }
    if (!decide(counted)) return false;
    // Reservations that count no more are dropped, as the knex adapter deletes them with its next reservation.
    const kept = others.filter(live);
    this.rows = [...kept, ...claims.map((c) => ({ sendId, budget: c.budget, token: c.token ?? '', amount: c.amount, at }))];
    return true;
  }

  /** Reservations held (counting or not yet pruned), for tests that look at what a send left behind. */
  held(sendId?: string): readonly Reservation[] {
    return this.rows.filter((r) => sendId === undefined || r.sendId === sendId);
  }
}
