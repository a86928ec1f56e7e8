import type { NonceAllocator, NonceLane, SignedRecord } from '../../src/application/ports/nonce-allocator';
import type { SendWatch } from '../../src/application/ports/send-watch';

export type SendStore = NonceAllocator & SendWatch;

const T = 1_800_000_000_000;
const STALE = 60_000;
const OPS: NonceLane = { relayer: 'ops', network: 'anvil' };
const OTHER: NonceLane = { relayer: 'ops', network: 'sepolia' };

function record(sendId: string, nonce: number, overrides: Partial<SignedRecord> = {}): SignedRecord {
  return {
    txHash: `0x${(sendId + nonce).split('').map((c) => c.charCodeAt(0).toString(16)).join('').padEnd(64, '0').slice(0, 64)}`,
    sendId, nonce, purpose: 'send', raw: '0x02f8', from: `0x${'a'.repeat(40)}`, to: `0x${'b'.repeat(40)}`,
    valueWei: 123_456_789_012_345_678_901n, data: '0x', gasLimit: 21_000n,
    fees: { kind: 'eip1559', maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }, signedAt: T, ...overrides,
  };
}

/**
 * What every store of the send path must do (the knex adapter and the in-memory fake): nonce lanes synced from the
 * chain, a nonce per send for good once signed, nonces given back and reused lowest first, signed bytes kept, and
 * the watch of sends in flight with leases one owner holds at a time.
 */
export function sendStoreContract(name: string, open: () => Promise<{ store: SendStore; close(): Promise<void> }>): void {
  describe(`send store contract: ${name}`, () => {
    let store: SendStore;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ store, close } = await open());
    });
    afterEach(async () => close());

    it('a lane starts at the chain\'s pending nonce and hands out consecutive nonces, one per send, the same on asking again', async () => {
      expect(await store.synced(OPS)).toBe(false);
      await store.sync(OPS, 7, T);
      expect(await store.synced(OPS)).toBe(true);
      expect(await store.synced(OTHER)).toBe(false);
      expect(await store.reserve(OPS, 's1', T, STALE)).toBe(7);
      expect(await store.reserve(OPS, 's2', T, STALE)).toBe(8);
      expect(await store.reserve(OPS, 's1', T, STALE)).toBe(7);
      await store.sync(OTHER, 0, T);
      expect(await store.reserve(OTHER, 's3', T, STALE)).toBe(0);
    });

    it('concurrent reservations of one lane never share a nonce and leave no gap', async () => {
      await store.sync(OPS, 0, T);
      const nonces = await Promise.all(Array.from({ length: 50 }, (_, i) => store.reserve(OPS, `c${i}`, T, STALE)));
      expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it('a nonce given back is reused by the next send, lowest first; a resync never goes below what was handed out', async () => {
      await store.sync(OPS, 10, T);
      for (const id of ['a', 'b', 'c']) await store.reserve(OPS, id, T, STALE);
      await store.giveBack('c');
      await store.giveBack('a');
      expect(await store.reserve(OPS, 'd', T, STALE)).toBe(10);
      expect(await store.reserve(OPS, 'e', T, STALE)).toBe(12);
      expect(await store.reserve(OPS, 'f', T, STALE)).toBe(13);
      await store.sync(OPS, 11, T);
      expect(await store.reserve(OPS, 'g', T, STALE)).toBe(14);
      // A free nonce below the chain's pending one was used on chain meanwhile: it is forgotten, not reused.
      await store.giveBack('f');
      await store.sync(OPS, 20, T);
      expect(await store.reserve(OPS, 'h', T, STALE)).toBe(20);
    });

    it('a nonce the chain used is never handed out again: given back after the sync that passed it, it is forgotten', async () => {
      await store.sync(OPS, 0, T);
      expect(await store.reserve(OPS, 'jammed', T, STALE)).toBe(0);
      expect(await store.reserve(OPS, 'later', T, STALE)).toBe(1);
      expect(await store.reserve(OPS, 'abandoned', T, STALE)).toBe(2);
      // Nonces 0-2 were used from the relayer's key outside: the broadcast of 'jammed' failed 'nonce too low'.
      await store.sync(OPS, 3, T);
      await store.giveBack('jammed');
      expect(await store.reserve(OPS, 'retry', T, STALE)).toBe(3);
      await store.recordSigned(OPS, record('retry', 3));
      // Nor is a stale unsigned reservation below the floor reused, nor one given back above it lost.
      expect(await store.reserve(OPS, 'next', T + STALE + 1, STALE)).toBe(4);
      await store.giveBack('next');
      expect(await store.reserve(OPS, 'again', T + STALE + 1, STALE)).toBe(4);
      await store.giveBack('later');
      await store.sync(OPS, 0, T);
      expect(await store.reserve(OPS, 'after', T + STALE + 1, STALE)).toBe(5);
    });

    it('a nonce given back behind held ones is a hole until a send or a claim takes it; one claim wins', async () => {
      await store.sync(OPS, 5, T);
      for (const id of ['a', 'b', 'c', 'd']) await store.reserve(OPS, id, T, STALE);
      expect(await store.holes(OPS)).toEqual([]);
      await store.giveBack('b');
      await store.giveBack('d');
      // 8 is free but nothing is held above it: the next send takes it, it holds up nobody.
      expect(await store.holes(OPS)).toEqual([6]);
      expect(await store.holes(OTHER)).toEqual([]);
      const claims = await Promise.all([store.claim(OPS, 6, 'gap:a', T), store.claim(OPS, 6, 'gap:b', T)]);
      expect(claims.sort()).toEqual([false, true]);
      expect(await store.holes(OPS)).toEqual([]);
      expect(await store.claim(OPS, 7, 'gap:c', T)).toBe(false);
      expect(await store.reserve(OPS, 'e', T, STALE)).toBe(8);
      await store.giveBack('c');
      await store.sync(OPS, 8, T);
      // Below the floor the chain used it: not a hole.
      expect(await store.holes(OPS)).toEqual([]);
    });

    it('a nonce reserved and never signed is reused once stale; a signed one never is', async () => {
      await store.sync(OPS, 0, T);
      expect(await store.reserve(OPS, 'dead', T, STALE)).toBe(0);
      expect(await store.reserve(OPS, 'kept', T, STALE)).toBe(1);
      await store.recordSigned(OPS, record('kept', 1));
      expect(await store.reserve(OPS, 'early', T + STALE - 1, STALE)).toBe(2);
      expect(await store.reserve(OPS, 'late', T + STALE + 1, STALE)).toBe(0);
      // The first holder lost its nonce: recording a signature at it now is refused.
      await expect(store.recordSigned(OPS, record('dead', 0))).rejects.toThrow(/does not hold nonce 0/);
      expect(await store.signed('dead')).toEqual([]);
    });

    it('keeps every signed transaction of a send, oldest first, exact amounts and fees included', async () => {
      await store.sync(OPS, 3, T);
      await store.reserve(OPS, 'x', T, STALE);
      const first = record('x', 3);
      const bump = record('x', 3, { txHash: `0x${'e'.repeat(64)}`, purpose: 'replacement', signedAt: T + 5, data: '0xa9059cbb', fees: { kind: 'eip1559', maxFeePerGas: 3_375_000_000n, maxPriorityFeePerGas: 1_125_000_000n } });
      const cancel = record('x', 3, { txHash: `0x${'f'.repeat(64)}`, purpose: 'cancel', signedAt: T + 9, valueWei: 0n, fees: { kind: 'legacy', gasPrice: 5n } });
      await store.recordSigned(OPS, cancel);
      await store.recordSigned(OPS, first);
      await store.recordSigned(OPS, bump);
      await store.recordSigned(OPS, bump);
      expect(await store.signed('x')).toEqual([first, bump, cancel]);
      expect(await store.signed('y')).toEqual([]);
    });

    it('a watched send is due when it says, leased by one owner at a time, and gone once unwatched', async () => {
      await store.watch({ sendId: 's1', runId: 'r1' }, T + 100);
      await store.watch({ sendId: 's2', runId: 'r2' }, T + 50);
      expect(await store.count()).toBe(2);
      expect(await store.claimDue('a', T, T + 1000, 10)).toEqual([]);
      expect(await store.claimDue('a', T + 100, T + 1000, 10)).toEqual([{ sendId: 's2', runId: 'r2' }, { sendId: 's1', runId: 'r1' }]);
      expect(await store.claimDue('b', T + 200, T + 1200, 10)).toEqual([]);
      expect(await store.lease({ sendId: 's1', runId: 'r1' }, 'b', T + 200, T + 1200)).toBe(false);
      expect(await store.lease({ sendId: 's1', runId: 'r1' }, 'a', T + 200, T + 1200)).toBe(true);
      await store.release('s1', 'a', T + 5000);
      expect(await store.lease({ sendId: 's1', runId: 'r1' }, 'b', T + 300, T + 1300)).toBe(true);
      expect(await store.claimDue('c', T + 1301, T + 2000, 10)).toEqual([{ sendId: 's2', runId: 'r2' }]);
      await store.watch({ sendId: 's1', runId: 'r1' }, T + 10);
      await store.unwatch('s2');
      expect(await store.count()).toBe(1);
      // A send whose row went (a crash between its settle's look and its journal) is watched again by its lease.
      expect(await store.lease({ sendId: 's2', runId: 'r2' }, 'a', T + 5000, T + 6000)).toBe(true);
      expect(await store.count()).toBe(2);
      expect(await store.lease({ sendId: 's2', runId: 'r2' }, 'b', T + 5001, T + 6001)).toBe(false);
      expect(await store.claimDue('b', T + 6001, T + 7000, 10)).toEqual([{ sendId: 's1', runId: 'r1' }, { sendId: 's2', runId: 'r2' }]);
    });
  });
}
