import { RESERVATION_UNJOURNALED_MS, type BudgetReservations, type ReservationClaim } from '../../src/application/ports/budget-reservations';
import type { JournalWriter } from '../../src/application/ports/journal-writer';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { DAY, HOUR, iso, MINUTE, SECOND, T0 } from '../mothers/journal-events';
import { landedSend } from './spend.contract';

/** The budget reservations and the journal whose sends (and ledger) they read. */
export interface ReservationStorage {
  readonly journal: JournalWriter;
  readonly reservations: BudgetReservations;
  /** Another handle on the same storage (knex: a second connection to the same file; the fake: the same object). */
  readonly other: BudgetReservations;
  close(): Promise<void>;
}

const TOKEN = '0x00000000000000000000000000000000000000aa';
const LATER = T0 + HOUR;
const native = (amount: bigint, over: Partial<ReservationClaim> = {}): ReservationClaim =>
  ({ budget: 'pay', amount, since: LATER - DAY, ledger: { workflows: ['payouts'] }, ...over });
const token = (amount: bigint, over: Partial<ReservationClaim> = {}): ReservationClaim =>
  ({ budget: 'tok', token: TOKEN, amount, since: LATER - DAY, ...over });

/** What counts against `claim` now: `reserve` asked with a refusal, so it reserves nothing. */
async function counted(r: BudgetReservations, claim: ReservationClaim, at = LATER): Promise<bigint> {
  let seen = -1n;
  await r.reserve('probe.send', at, [claim], (c) => {
    seen = c[0]!;
    return false;
  });
  return seen;
}

/** Reserves when the claim fits under `cap` (what BudgetGuard's decision amounts to). */
const within = (r: BudgetReservations, sendId: string, claim: ReservationClaim, cap: bigint, at = LATER): Promise<boolean> =>
  r.reserve(sendId, at, [claim], (c) => c[0]! + claim.amount <= cap);

/** The send's events up to and including `send.submitted` (in flight). */
const inFlight = (spec: Parameters<typeof landedSend>[0]): JournalEvent[] => landedSend(spec).slice(0, 4);

export function budgetReservationsContract(name: string, open: () => Promise<ReservationStorage>): void {
  describe(`budget reservations contract: ${name}`, () => {
    let s: ReservationStorage;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(async () => s.close());

    it('lets exactly the racing claims that fit pass one cap, across connections', async () => {
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) => within(i % 2 ? s.other : s.reservations, `r${i}.send`, native(3n), 20n)));
      expect(results.filter(Boolean)).toHaveLength(6);
      expect(await counted(s.reservations, native(0n))).toBe(18n);
      expect(await counted(s.other, native(0n))).toBe(18n);
    });

    it('never lets racing claims of mixed amounts pass a cap together', async () => {
      const amounts = Array.from({ length: 24 }, (_, i) => BigInt(1 + (i % 3)));
      const results = await Promise.all(amounts.map((a, i) => within(i % 2 ? s.other : s.reservations, `r${i}.send`, native(a), 17n)));
      const total = amounts.filter((_, i) => results[i]).reduce((x, y) => x + y, 0n);
      // Whatever the order they were decided in, the cap is filled to within the largest amount, never beyond it.
      expect(total).toBeLessThanOrEqual(17n);
      expect(total).toBeGreaterThan(17n - 3n);
      expect(await counted(s.reservations, native(0n))).toBe(total);
    });

    it('counts the ledger value of the scope in the window, and a send’s value once: reserved in flight, then in the ledger', async () => {
      await s.journal.append(landedSend({ runId: 'old', valueWei: '7', at: T0 - 2 * DAY }));
      await s.journal.append(landedSend({ runId: 'other', valueWei: '9', workflow: 'keeper' }));
      await s.journal.append(landedSend({ runId: 'elsewhere', valueWei: '11', relayer: 'treasury' }));
      expect(await counted(s.reservations, native(0n))).toBe(11n);
      expect(await counted(s.reservations, native(0n, { ledger: { workflows: ['payouts'], relayers: ['ops'] } }))).toBe(0n);
      expect(await counted(s.reservations, native(0n, { ledger: { workflows: ['payouts', 'keeper'], relayers: ['ops'] } }))).toBe(9n);

      expect(await within(s.reservations, 'a.send', native(100n), 1000n)).toBe(true);
      expect(await counted(s.reservations, native(0n))).toBe(111n);
      await s.journal.append(inFlight({ runId: 'a', valueWei: '100' }));
      expect(await counted(s.reservations, native(0n))).toBe(111n);
      await s.journal.append(landedSend({ runId: 'a', valueWei: '100' }).slice(4));
      expect(await counted(s.reservations, native(0n))).toBe(111n);
    });

    it('counts ledger values beyond 18 digits at the window’s edges exactly, when refusing and when reserving', async () => {
      const at = T0 + 30 * MINUTE;
      const big = 10n ** 30n;
      await s.journal.append(landedSend({ runId: 'early', valueWei: String(big), at: at - DAY + 10 * MINUTE }));
      await s.journal.append(landedSend({ runId: 'late', valueWei: String(big + 1n), at: at - 10 * MINUTE }));
      await s.journal.append(landedSend({ runId: 'before', valueWei: '5', at: at - DAY - MINUTE }));
      const inWindow = (amount: bigint): ReservationClaim => native(amount, { since: at - DAY });
      expect(await counted(s.reservations, inWindow(0n), at)).toBe(2n * big + 1n);
      expect(await within(s.reservations, 'big.send', inWindow(2n), 2n * big + 2n, at)).toBe(false);
      expect(await within(s.reservations, 'big.send', inWindow(1n), 2n * big + 2n, at)).toBe(true);
      expect(await counted(s.other, inWindow(0n), at)).toBe(2n * big + 2n);
    });

    it('stops counting a native reservation whose send ended without landing, or that was released', async () => {
      expect(await within(s.reservations, 'd.send', native(40n), 100n)).toBe(true);
      expect(await within(s.reservations, 'e.send', native(50n), 100n)).toBe(true);
      expect(await within(s.reservations, 'f.send', native(20n), 100n)).toBe(false);
      await s.journal.append(landedSend({ runId: 'd', valueWei: '40', outcome: 'dropped' }));
      expect(await counted(s.reservations, native(0n))).toBe(50n);
      await s.reservations.release('e.send');
      expect(await counted(s.reservations, native(0n))).toBe(0n);
      expect(await within(s.reservations, 'f.send', native(100n), 100n)).toBe(true);
    });

    it('counts a reservation whose send was never journaled for a while only (its process died before send.queued)', async () => {
      expect(await within(s.reservations, 'g.send', native(30n), 100n, LATER)).toBe(true);
      expect(await counted(s.reservations, native(0n), LATER + RESERVATION_UNJOURNALED_MS - SECOND)).toBe(30n);
      expect(await counted(s.reservations, native(0n), LATER + RESERVATION_UNJOURNALED_MS + SECOND)).toBe(0n);
    });

    it('replaces what a send reserved when the same send asks again, and reserves nothing on a refusal', async () => {
      expect(await within(s.reservations, 'h.send', native(30n), 100n)).toBe(true);
      expect(await within(s.reservations, 'h.send', native(60n), 100n)).toBe(true);
      expect(await counted(s.reservations, native(0n))).toBe(60n);
      expect(await within(s.reservations, 'i.send', native(41n), 100n)).toBe(false);
      expect(await counted(s.reservations, native(0n))).toBe(60n);
    });

    it('counts token reservations per budget and token contract over the window, beyond 64 bits', async () => {
      const big = 1n << 100n;
      expect(await within(s.reservations, 'j.send', token(big), big * 2n, T0)).toBe(true);
      await s.journal.append(landedSend({ runId: 'j' }));
      expect(await within(s.reservations, 'k.send', token(3n, { token: '0x00000000000000000000000000000000000000bb' }), 5n, T0)).toBe(true);
      expect(await within(s.reservations, 'l.send', token(7n, { budget: 'tok2' }), 10n, T0)).toBe(true);
      // A landed transfer keeps counting over its window (the ledger holds no token amounts).
      expect(await counted(s.reservations, token(0n))).toBe(big);
      expect(await counted(s.reservations, token(0n, { since: T0 + MINUTE }))).toBe(0n);
      expect(await within(s.reservations, 'm.send', token(big + 1n), big * 2n)).toBe(false);
      expect(await within(s.reservations, 'm.send', token(big), big * 2n)).toBe(true);
      expect(await counted(s.reservations, token(0n))).toBe(big * 2n);
    });

    it('stops counting a token reservation whose send ended without landing', async () => {
      expect(await within(s.reservations, 'n.send', token(4n), 5n, T0)).toBe(true);
      expect(await within(s.reservations, 'o.send', token(2n), 5n, T0)).toBe(false);
      await s.journal.append(landedSend({ runId: 'n', outcome: 'reverted' }));
      expect(await within(s.reservations, 'o.send', token(5n), 5n)).toBe(true);
    });

    it('decides several claims at once: all are reserved, or none', async () => {
      const both = [native(10n), token(3n)];
      expect(await s.reservations.reserve('p.send', LATER, both, (c) => c[0]! + 10n <= 15n && c[1]! + 3n <= 5n)).toBe(true);
      expect(await s.reservations.reserve('q.send', LATER, both, (c) => c[0]! + 10n <= 15n && c[1]! + 3n <= 5n)).toBe(false);
      expect(await counted(s.reservations, native(0n))).toBe(10n);
      expect(await counted(s.reservations, token(0n))).toBe(3n);
      expect(await s.journal.append([{ type: 'run.started', at: iso(T0), run_id: 'x', workflow: 'payouts', session: 'live', trigger: { kind: 'cron' } }])).toMatchObject({ applied: 1 });
    });
  });
}
