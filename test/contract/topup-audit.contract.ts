import type { TopupAudit } from '../../src/application/ports/topup-audit';
import { newTopupAttempt, type TopupAttempt } from '../../src/domain/relayers/topup';
import { T0 } from '../mothers/journal-events';

export interface TopupAuditFixture {
  readonly audit: TopupAudit;
  /** The same storage opened again (a new process); the fake gives itself back. */
  reopen(): Promise<TopupAudit>;
  close(): Promise<void>;
}

/** A pending attempt with readable defaults. */
export function aTopup(overrides: Partial<Omit<TopupAttempt, 'outcome' | 'txHash' | 'error'>> = {}): TopupAttempt {
  return newTopupAttempt({
    topupId: 'r-topup-1', at: T0, by: 'alice', from: 'ops', fromAddress: `0x${'aa'.repeat(20)}`, to: 'keeper', toAddress: `0x${'bb'.repeat(20)}`,
    network: 'sepolia', chainId: 11155111, amountWei: 5n * 10n ** 17n, ...overrides,
  });
}

const all = { limit: 500 };
const none = { equals: {} };

/** What every TopupAudit must do: the knex adapter on SQLite and the in-memory fake alike. */
export function topupAuditContract(name: string, open: () => Promise<TopupAuditFixture>): void {
  describe(`top-up audit contract: ${name}`, () => {
    let fx: TopupAuditFixture;
    beforeEach(async () => {
      fx = await open();
    });
    afterEach(async () => fx.close());

    it('records an attempt pending, exactly as given (uint256 amounts to the wei), and keeps it across a reopen', async () => {
      const big = (1n << 255n) + 12345n;
      const attempt = aTopup({ amountWei: big });
      await fx.audit.record(attempt);
      expect(await fx.audit.list(none, all)).toEqual([attempt]);
      expect(attempt).toMatchObject({ outcome: 'pending', txHash: null, error: null });
      expect(await (await fx.reopen()).list(none, all)).toEqual([attempt]);
    });

    it('a second record of the same id is refused and changes nothing', async () => {
      await fx.audit.record(aTopup());
      await expect(fx.audit.record(aTopup({ by: 'mallory' }))).rejects.toThrow();
      expect((await fx.audit.list(none, all)).map((r) => r.by)).toEqual(['alice']);
    });

    it('completes a pending attempt once: outcome, hash and error; a second completion changes nothing', async () => {
      await fx.audit.record(aTopup({ topupId: 'a' }));
      await fx.audit.record(aTopup({ topupId: 'b', at: T0 + 1 }));
      const hash = `0x${'cd'.repeat(32)}`;
      await fx.audit.complete('a', { outcome: 'confirmed', txHash: hash, error: null });
      await fx.audit.complete('a', { outcome: 'failed', txHash: null, error: 'late' });
      await fx.audit.complete('b', { outcome: 'failed', txHash: null, error: 'sepolia: transaction rejected: insufficient funds' });
      await fx.audit.complete('unknown-id', { outcome: 'failed', txHash: null, error: 'x' });
      const rows = await fx.audit.list(none, all);
      expect(rows.map((r) => [r.topupId, r.outcome, r.txHash, r.error])).toEqual([
        ['b', 'failed', null, 'sepolia: transaction rejected: insufficient funds'],
        ['a', 'confirmed', hash, null],
      ]);
    });

    it('a submitted attempt is completed once more when its transaction settles later; then it stays', async () => {
      await fx.audit.record(aTopup({ topupId: 'a' }));
      const hash = `0x${'ef'.repeat(32)}`;
      await fx.audit.complete('a', { outcome: 'submitted', txHash: hash, error: 'no receipt within 120 s: the transaction may still land' });
      await fx.audit.complete('a', { outcome: 'confirmed', txHash: hash, error: null });
      await fx.audit.complete('a', { outcome: 'failed', txHash: null, error: 'late' });
      expect((await fx.audit.list(none, all)).map((r) => [r.topupId, r.outcome, r.txHash, r.error])).toEqual([['a', 'confirmed', hash, null]]);
    });

    it('pages newest first on (at, topup_id), never skipping or repeating a row, with each filter and the time range', async () => {
      const rows: TopupAttempt[] = [];
      for (let i = 0; i < 12; i++) {
        // Pairs share a time: ties are broken by the id, descending.
        rows.push(aTopup({ topupId: `t-${String(i).padStart(2, '0')}`, at: T0 + Math.floor(i / 2) * 1000, from: i % 3 === 0 ? 'treasury' : 'ops', to: i % 2 ? 'keeper' : 'sweeper', by: i < 6 ? 'alice' : 'bob', network: i % 4 === 0 ? 'base' : 'sepolia' }));
      }
      for (const r of [...rows].reverse()) await fx.audit.record(r);
      await fx.audit.complete('t-03', { outcome: 'failed', txHash: null, error: 'e' });
      const expected = [...rows].sort((a, b) => b.at - a.at || (a.topupId < b.topupId ? 1 : -1)).map((r) => r.topupId);

      const seen: string[] = [];
      let after: { createdAt: number; id: string } | undefined;
      for (;;) {
        const page = await fx.audit.list(none, { limit: 5, after });
        seen.push(...page.map((r) => r.topupId));
        if (page.length < 5) break;
        after = { createdAt: page[4]!.at, id: page[4]!.topupId };
      }
      expect(seen).toEqual(expected);

      const ids = async (equals: Record<string, string>, extra: { since?: number; until?: number } = {}): Promise<string[]> =>
        (await fx.audit.list({ equals, ...extra }, all)).map((r) => r.topupId);
      const pick = (f: (r: TopupAttempt) => boolean): string[] => expected.filter((id) => f(rows.find((r) => r.topupId === id)!));
      expect(await ids({ from: 'treasury' })).toEqual(pick((r) => r.from === 'treasury'));
      expect(await ids({ to: 'keeper' })).toEqual(pick((r) => r.to === 'keeper'));
      expect(await ids({ by: 'bob', network: 'sepolia' })).toEqual(pick((r) => r.by === 'bob' && r.network === 'sepolia'));
      expect(await ids({ outcome: 'failed' })).toEqual(['t-03']);
      expect(await ids({ outcome: 'pending' })).toEqual(expected.filter((id) => id !== 't-03'));
      expect(await ids({}, { since: T0 + 2000, until: T0 + 3000 })).toEqual(['t-07', 't-06', 't-05', 't-04']);
      expect(await ids({ from: 'nobody' })).toEqual([]);
    });
  });
}
