import type { NonceAllocator, NonceLane, SignedRecord } from '../../src/application/ports/nonce-allocator';
import type { SendWatch, WatchedSend } from '../../src/application/ports/send-watch';

interface Reservation {
  sendId: string | null;
  signed: boolean;
  reservedAt: number;
}

interface Watched {
  readonly send: WatchedSend;
  dueAt: number;
  owner: string | null;
  leaseUntil: number | null;
}

const laneKey = (lane: NonceLane): string => `${lane.relayer}\u0000${lane.network}`;

/** The send path's storage in memory: passes test/contract/send-store.contract.ts like the knex adapter. */
export class InMemorySendStore implements NonceAllocator, SendWatch {
  private readonly lanes = new Map<string, number>();
  /** The chain's pending nonce at each lane's last sync: nonces below it are used on chain, never free again. */
  private readonly floors = new Map<string, number>();
  private readonly reservations = new Map<string, Map<number, Reservation>>();
  private readonly records: SignedRecord[] = [];
  private readonly watched = new Map<string, Watched>();

  async synced(lane: NonceLane): Promise<boolean> {
    return this.lanes.has(laneKey(lane));
  }

  async sync(lane: NonceLane, chainPending: number): Promise<void> {
    const key = laneKey(lane);
    this.lanes.set(key, Math.max(this.lanes.get(key) ?? 0, chainPending));
    this.floors.set(key, Math.max(this.floors.get(key) ?? 0, chainPending));
    const held = this.reservations.get(key);
    for (const [nonce, r] of held ?? []) if (r.sendId === null && nonce < chainPending) held!.delete(nonce);
  }

  async reserve(lane: NonceLane, sendId: string, now: number, staleMs: number): Promise<number> {
    const key = laneKey(lane);
    for (const held of this.reservations.values()) for (const [nonce, r] of held) if (r.sendId === sendId) return nonce;
    if (!this.lanes.has(key)) throw new Error(`nonce lane ${lane.relayer}@${lane.network} was never synced`);
    const lane_ = this.reservations.get(key) ?? new Map<number, Reservation>();
    this.reservations.set(key, lane_);
    const floor = this.floors.get(key) ?? 0;
    const free = [...lane_]
      .filter(([nonce, r]) => nonce >= floor && (r.sendId === null || (!r.signed && r.reservedAt < now - staleMs)))
      .sort(([a], [b]) => a - b)[0];
    if (free) {
      Object.assign(free[1], { sendId, signed: false, reservedAt: now });
      return free[0];
    }
    const nonce = this.lanes.get(key)!;
    this.lanes.set(key, nonce + 1);
    lane_.set(nonce, { sendId, signed: false, reservedAt: now });
    return nonce;
  }

  async recordSigned(lane: NonceLane, record: SignedRecord): Promise<void> {
    const r = this.reservations.get(laneKey(lane))?.get(record.nonce);
    if (!r || r.sendId !== record.sendId) throw new Error(`send ${record.sendId} does not hold nonce ${record.nonce} of ${lane.relayer}@${lane.network}`);
    r.signed = true;
    if (!this.records.some((x) => x.txHash.toLowerCase() === record.txHash.toLowerCase())) this.records.push({ ...record, txHash: record.txHash.toLowerCase() });
  }

  async giveBack(sendId: string): Promise<void> {
    for (const [key, held] of this.reservations) {
      for (const [nonce, r] of held) {
        if (r.sendId !== sendId) continue;
        if (nonce < (this.floors.get(key) ?? 0)) {
          held.delete(nonce);
          continue;
        }
        r.sendId = null;
        r.signed = false;
      }
    }
  }

  async signed(sendId: string): Promise<SignedRecord[]> {
    return this.records.filter((r) => r.sendId === sendId).sort((a, b) => a.signedAt - b.signedAt || a.nonce - b.nonce).map((r) => ({ ...r }));
  }

  async holes(lane: NonceLane): Promise<number[]> {
    const key = laneKey(lane);
    const held = [...(this.reservations.get(key) ?? [])];
    const floor = this.floors.get(key) ?? 0;
    return held
      .filter(([nonce, r]) => r.sendId === null && nonce >= floor && held.some(([above, h]) => above > nonce && h.sendId !== null))
      .map(([nonce]) => nonce)
      .sort((a, b) => a - b);
  }

  async claim(lane: NonceLane, nonce: number, holderId: string, now: number): Promise<boolean> {
    const r = this.reservations.get(laneKey(lane))?.get(nonce);
    if (!r || r.sendId !== null) return false;
    Object.assign(r, { sendId: holderId, signed: false, reservedAt: now });
    return true;
  }

  async watch(send: WatchedSend, dueAt: number): Promise<void> {
    const known = this.watched.get(send.sendId);
    if (known) known.dueAt = dueAt;
    else this.watched.set(send.sendId, { send: { ...send }, dueAt, owner: null, leaseUntil: null });
  }

  async lease(send: WatchedSend, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    if (!this.watched.has(send.sendId)) this.watched.set(send.sendId, { send: { ...send }, dueAt: leaseUntil, owner: null, leaseUntil: null });
    const w = this.watched.get(send.sendId)!;
    if (w.leaseUntil !== null && w.leaseUntil >= now && w.owner !== owner) return false;
    w.owner = owner;
    w.leaseUntil = leaseUntil;
    return true;
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<WatchedSend[]> {
    const due = [...this.watched.values()]
      .filter((w) => w.dueAt <= now && (w.leaseUntil === null || w.leaseUntil < now))
      .sort((a, b) => a.dueAt - b.dueAt)
      .slice(0, limit);
    for (const w of due) {
      w.owner = owner;
      w.leaseUntil = leaseUntil;
    }
    return due.map((w) => ({ ...w.send }));
  }

  async release(sendId: string, owner: string, dueAt: number): Promise<void> {
    const w = this.watched.get(sendId);
    if (!w || w.owner !== owner) return;
    Object.assign(w, { owner: null, leaseUntil: null, dueAt });
  }

  async unwatch(sendId: string): Promise<void> {
    this.watched.delete(sendId);
  }

  async count(): Promise<number> {
    return this.watched.size;
  }
}
