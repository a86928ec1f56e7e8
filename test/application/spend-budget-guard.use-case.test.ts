import type { BudgetConfig, ChainflowConfig } from '../../src/application/config';
import { GetRunTimeline } from '../../src/application/history/get-run-timeline.use-case';
import type { StepEvent } from '../../src/application/history/timeline';
import { BudgetGuard, type BudgetCheckRequest } from '../../src/application/spend/budget-guard.use-case';
import { ExplorerLinks } from '../../src/domain/explorer';
import type { BudgetChecked, JournalEvent } from '../../src/domain/journal/journal-event';
import { Redactor } from '../../src/domain/redactor';
import { anEntry, landedSend } from '../contract/spend.contract';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryBudgetReservations, InMemorySpendLedger } from '../fakes/in-memory-spend';
import { DAY, HOUR, iso, MINUTE, T0 } from '../mothers/journal-events';

type Budget = Omit<BudgetConfig, 'name' | 'scope'> & { scope?: BudgetConfig['scope'] };

function configOf(budgets: Record<string, Budget>, workflows: Record<string, string[]>): ChainflowConfig {
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false },
    storage: { url: 'sqlite::memory:' },
    networks: new Map(),
    relayers: new Map(),
    budgets: new Map(Object.entries(budgets).map(([name, b]) => [name, { name, scope: {}, ...b }])),
    workflows: new Map(Object.entries(workflows).map(([name, list]) => [name, { name, budgets: list, definition: {} }])),
    secretValues: [],
  };
}

const NOW = T0;
const WINDOW = 24 * HOUR;

describe('BudgetGuard', () => {
  let spend: InMemorySpendLedger;
  let journal: InMemoryJournal;
  let reservations: InMemoryBudgetReservations;
  let clock: FixedClock;

  beforeEach(async () => {
    spend = new InMemorySpendLedger();
    journal = new InMemoryJournal({ spend });
    reservations = InMemoryBudgetReservations.over(journal);
    clock = new FixedClock(NOW);
    await startRun('r1', 'payouts');
    await startRun('k1', 'keeper');
  });

  async function startRun(runId: string, workflow: string): Promise<void> {
    await journal.append([
      { type: 'run.started', at: iso(NOW - HOUR), run_id: runId, workflow, session: 'live', trigger: { kind: 'cron' } },
      { type: 'step.started', at: iso(NOW - HOUR), run_id: runId, step_run_id: `${runId}.pay`, step_id: 'pay', step_type: 'send', attempt: 1 },
    ]);
  }

  const guardOf = (config: ChainflowConfig): BudgetGuard => new BudgetGuard(config, spend, reservations, journal, clock);
  /** A gas cap on the payouts workflow (keeper does not opt in); scope: relayer ops, or every relayer with `null`. */
  const gasGuard = (cap: bigint, relayers: string[] | null = ['ops']): BudgetGuard =>
    guardOf(configOf({ daily_gas: { windowMs: WINDOW, maxGasSpendWei: cap, scope: relayers ? { relayers } : {} } }, { payouts: ['daily_gas'], keeper: [] }));
  const request = (overrides: Partial<BudgetCheckRequest> = {}): BudgetCheckRequest => ({
    runId: 'r1', stepRunId: 'r1.pay', sendId: 'r1.pay.send-1', workflow: 'payouts', relayer: 'ops', valueWei: 0n, ...overrides,
  });
  const checksIn = async (runId = 'r1'): Promise<BudgetChecked[]> =>
    (await journal.stream(runId)).filter((e): e is BudgetChecked => e.type === 'budget.checked');
  const spent = (stepRunId: string, gasSpendWei: bigint, overrides: Parameters<typeof anEntry>[0] extends infer P ? Partial<P> : never = {}) =>
    anEntry({ stepRunId, gasSpendWei, recordedAt: NOW - HOUR, workflow: 'payouts', relayer: 'ops', ...overrides });

  describe('max_gas_spend', () => {
    it('refuses with budget_exceeded once the recorded gas spend in the window has reached the cap', async () => {
      await spend.append([spent('a.pay', 600n), spent('b.pay', 400n)]);
      const verdict = await gasGuard(1000n).check(request());
      expect(verdict.allowed).toBe(false);
      expect(verdict.error?.kind).toBe('budget_exceeded');
      expect(verdict.error?.message).toContain('daily_gas');
      expect(verdict.checks).toEqual([expect.objectContaining({ budget: 'daily_gas', cap: 'max_gas_spend', spentWei: 1000n, capWei: 1000n, allowed: false })]);
    });

    it('refuses above the cap too, exactly beyond 64 bits', async () => {
      await spend.append([spent('a.pay', 1n << 200n), spent('b.pay', 1n)]);
      expect((await gasGuard(1n << 200n).check(request())).allowed).toBe(false);
      expect((await gasGuard((1n << 200n) + 2n).check(request())).allowed).toBe(true);
    });

    it('allows below the cap', async () => {
      await spend.append([spent('a.pay', 600n), spent('b.pay', 399n)]);
      const verdict = await gasGuard(1000n).check(request());
      expect(verdict).toMatchObject({ allowed: true, checks: [expect.objectContaining({ spentWei: 999n, allowed: true })] });
      expect(verdict.error).toBeUndefined();
    });

    it('counts only entries inside the window', async () => {
      await spend.append([
        spent('old.pay', 5000n, { recordedAt: NOW - WINDOW - 1 }),
        spent('older.pay', 5000n, { recordedAt: NOW - 3 * DAY }),
        spent('in.pay', 7n, { recordedAt: NOW - WINDOW + 1 }),
        spent('late.pay', 11n, { recordedAt: NOW - MINUTE }),
      ]);
      const verdict = await gasGuard(1000n).check(request());
      expect(verdict.allowed).toBe(true);
      expect(verdict.checks[0]!.spentWei).toBe(18n);
      clock.advance(2 * DAY);
      expect((await gasGuard(1n).check(request())).checks[0]!.spentWei).toBe(0n);
    });

    it('counts only relayers in scope and workflows that opted in', async () => {
      await spend.append([
        spent('hot.pay', 5000n, { relayer: 'hot' }),
        spent('keeper.pay', 5000n, { workflow: 'keeper' }),
        spent('unknown.pay', 5000n, { workflow: 'not-configured' }),
        spent('topup.pay', 5000n, { workflow: 'relayers.topup' }),
        spent('ours.pay', 3n),
      ]);
      const verdict = await gasGuard(1000n).check(request());
      expect(verdict.allowed).toBe(true);
      expect(verdict.checks[0]!.spentWei).toBe(3n);
    });

    it('counts every relayer when the budget names no relayer scope', async () => {
      await spend.append([spent('hot.pay', 600n, { relayer: 'hot' }), spent('ops.pay', 400n)]);
      const verdict = await gasGuard(1000n, null).check(request({ relayer: 'cold' }));
      expect(verdict.allowed).toBe(false);
      expect(verdict.checks[0]!.spentWei).toBe(1000n);
    });

    it('does not check a workflow that does not list the budget, nor a relayer out of scope, and journals nothing for them', async () => {
      await spend.append([spent('a.pay', 5000n), spent('k.pay', 5000n, { workflow: 'keeper' })]);
      const guard = gasGuard(1000n);
      expect(await guard.check(request({ runId: 'k1', stepRunId: 'k1.pay', workflow: 'keeper' }))).toMatchObject({ allowed: true, checks: [] });
      expect(await guard.check(request({ relayer: 'hot' }))).toMatchObject({ allowed: true, checks: [] });
      expect(await checksIn('k1')).toEqual([]);
      expect(await checksIn('r1')).toEqual([]);
    });
  });

  describe('journaling', () => {
    it('appends a budget.checked event for every check, shown on the run timeline', async () => {
      await spend.append([spent('a.pay', 250n)]);
      const guard = guardOf(configOf({
        gas: { windowMs: WINDOW, maxGasSpendWei: 1000n, scope: { relayers: ['ops'] } },
        tight: { windowMs: WINDOW, maxGasSpendWei: 200n },
      }, { payouts: ['gas', 'tight'] }));
      const verdict = await guard.check(request());
      expect(verdict.allowed).toBe(false);
      expect(await checksIn()).toEqual([
        { type: 'budget.checked', at: iso(NOW), run_id: 'r1', step_run_id: 'r1.pay', budget: 'gas', spent_wei: '250', cap_wei: '1000', allowed: true, cap: 'max_gas_spend' },
        { type: 'budget.checked', at: iso(NOW), run_id: 'r1', step_run_id: 'r1.pay', budget: 'tight', spent_wei: '250', cap_wei: '200', allowed: false, cap: 'max_gas_spend' },
      ]);
      const { events } = await new GetRunTimeline(journal, new ExplorerLinks(), new Redactor([])).execute('r1');
      const step = events.find((e): e is StepEvent => e.kind === 'step' && e.step_run_id === 'r1.pay')!;
      expect(step.budget_checks).toEqual([
        expect.objectContaining({ budget: 'gas', cap: 'max_gas_spend', spent_wei: '250', cap_wei: '1000', allowed: true, at: iso(NOW) }),
        expect.objectContaining({ budget: 'tight', spent_wei: '250', cap_wei: '200', allowed: false }),
      ]);
    });

    it('journals allowed checks too, one per check', async () => {
      const guard = gasGuard(1000n);
      await guard.check(request());
      clock.advance(MINUTE);
      await guard.check(request());
      expect((await checksIn()).map((e) => [e.at, e.allowed])).toEqual([[iso(NOW), true], [iso(NOW + MINUTE), true]]);
    });
  });

  describe('max_native_value (a reservation)', () => {
    const nativeGuard = (cap: bigint): BudgetGuard =>
      guardOf(configOf({ value: { windowMs: WINDOW, maxNativeValueWei: cap, scope: { relayers: ['ops'] } } }, { payouts: ['value'], keeper: [] }));

    beforeEach(async () => {
      // f1 is in flight (reserved, not settled); f2's workflow and f3's relayer are not charged by the budget.
      expect((await nativeGuard(10n ** 30n).evaluate(request({ sendId: 'f1.send', valueWei: 40n }))).allowed).toBe(true);
      expect((await nativeGuard(10n ** 30n).evaluate(request({ sendId: 'f2.send', valueWei: 1000n, workflow: 'keeper' }))).checks).toEqual([]);
      expect((await nativeGuard(10n ** 30n).evaluate(request({ sendId: 'f3.send', valueWei: 1000n, relayer: 'hot' }))).checks).toEqual([]);
      await spend.append([
        spent('v.pay', 1n, { valueWei: 30n }),
        spent('v-old.pay', 1n, { valueWei: 1000n, recordedAt: NOW - WINDOW - 1 }),
        spent('v-hot.pay', 1n, { valueWei: 1000n, relayer: 'hot' }),
      ]);
    });

    it('allows when in-flight + recorded + this value equals the cap', async () => {
      const verdict = await nativeGuard(100n).check(request({ valueWei: 30n }));
      expect(verdict.allowed).toBe(true);
      expect(verdict.checks).toEqual([expect.objectContaining({ cap: 'max_native_value', spentWei: 70n, requestWei: 30n, capWei: 100n, allowed: true })]);
    });

    it('refuses when it would exceed the cap, and reserves nothing then', async () => {
      const verdict = await nativeGuard(100n).check(request({ valueWei: 31n }));
      expect(verdict.allowed).toBe(false);
      expect(verdict.error?.kind).toBe('budget_exceeded');
      const [event] = await checksIn();
      expect(event).toMatchObject({ cap: 'max_native_value', spent_wei: '70', request_wei: '31', cap_wei: '100', allowed: false });
      expect(reservations.held('r1.pay.send-1')).toEqual([]);
    });

    it('stops reserving a send once it settles', async () => {
      await journal.append(landedSend({ runId: 'f1', at: NOW - MINUTE, valueWei: '40', outcome: 'dropped' }));
      const verdict = await nativeGuard(100n).check(request({ valueWei: 70n }));
      expect(verdict.checks[0]).toMatchObject({ spentWei: 30n, allowed: true });
    });

    it('gives a reservation back when its send ends without broadcasting', async () => {
      await nativeGuard(100n).release('f1.send');
      const verdict = await nativeGuard(100n).evaluate(request({ valueWei: 70n }));
      expect(verdict.checks[0]).toMatchObject({ spentWei: 30n, allowed: true });
    });

    it('lets exactly one of two sends fired at once pass a cap only one fits (check and reservation are one step)', async () => {
      const guard = nativeGuard(70n + 10n ** 18n);
      const [a, b] = await Promise.all([
        guard.evaluate(request({ sendId: 'a.send', valueWei: 6n * 10n ** 17n })),
        guard.evaluate(request({ sendId: 'b.send', valueWei: 6n * 10n ** 17n })),
      ]);
      expect([a!.allowed, b!.allowed].sort()).toEqual([false, true]);
      expect([a, b].find((v) => !v!.allowed)!.error?.kind).toBe('budget_exceeded');
    });

    it('reserves nothing when a gas cap of the send refuses', async () => {
      const both = guardOf(configOf({ value: { windowMs: WINDOW, maxNativeValueWei: 10n ** 30n, maxGasSpendWei: 1n } }, { payouts: ['value'] }));
      const verdict = await both.evaluate(request({ sendId: 'g.send', valueWei: 5n }));
      expect(verdict.allowed).toBe(false);
      expect(verdict.checks.map((c) => [c.cap, c.allowed])).toEqual([['max_gas_spend', false], ['max_native_value', true]]);
      expect(reservations.held('g.send')).toEqual([]);
    });
  });

  describe('several budgets charging one send', () => {
    const guard = (): BudgetGuard => guardOf(configOf({
      gas_all: { windowMs: WINDOW, maxGasSpendWei: 10n ** 30n },
      value_ops: { windowMs: WINDOW, maxNativeValueWei: 10n ** 30n, scope: { relayers: ['ops'] } },
      gas_recent: { windowMs: 90 * MINUTE, maxGasSpendWei: 10n ** 30n },
    }, { payouts: ['gas_all', 'value_ops', 'gas_recent'], keeper: ['gas_all'] }));

    beforeEach(async () => {
      await spend.append([
        spent('p-ops.pay', 10n, { valueWei: 100n }),
        spent('p-hot.pay', 20n, { valueWei: 200n, relayer: 'hot' }),
        spent('k-ops.pay', 40n, { valueWei: 400n, workflow: 'keeper' }),
        spent('p-early.pay', 80n, { valueWei: 800n, recordedAt: NOW - 2 * HOUR }),
      ]);
    });

    it('count for each budget only what its own window and scope recorded', async () => {
      const verdict = await guard().evaluate(request());
      expect(verdict.checks).toEqual([
        expect.objectContaining({ budget: 'gas_all', cap: 'max_gas_spend', spentWei: 150n }),
        expect.objectContaining({ budget: 'value_ops', cap: 'max_native_value', spentWei: 900n }),
        expect.objectContaining({ budget: 'gas_recent', cap: 'max_gas_spend', spentWei: 30n }),
      ]);
    });

    it('read the ledger once per window for the gas caps, and once inside the reservation for the value cap', async () => {
      const totals = jest.spyOn(spend, 'totals');
      await guard().evaluate(request());
      expect(totals).toHaveBeenCalledTimes(3);
    });
  });

  describe('max_token_value (a reservation per token)', () => {
    const tokenGuard = (): BudgetGuard =>
      guardOf(configOf({ tokens: { windowMs: WINDOW, maxTokenValue: 100n } }, { payouts: ['tokens'] }));
    const tokenRequest = (n: number, address: string, amount: bigint): BudgetCheckRequest =>
      request({ stepRunId: `r1.t${n}`, sendId: `r1.t${n}.send`, token: { address, amount } });

    const reserved = (token: string): bigint => reservations.held().filter((r) => r.token === token).reduce((sum, r) => sum + r.amount, 0n);

    it('accumulates reservations per token contract (any case) within the window', async () => {
      const guard = tokenGuard();
      expect((await guard.check(tokenRequest(1, '0xA', 60n))).allowed).toBe(true);
      expect((await guard.check(tokenRequest(2, '0xA', 40n))).allowed).toBe(true);
      const refused = await guard.check(tokenRequest(3, '0xA', 1n));
      expect(refused.allowed).toBe(false);
      expect(refused.error?.kind).toBe('budget_exceeded');
      expect(refused.checks[0]).toMatchObject({ cap: 'max_token_value', token: '0xa', spentWei: 100n, requestWei: 1n });
      // A refused send reserves nothing; another token has its own reservation.
      expect(reserved('0xa')).toBe(100n);
      expect((await guard.check(tokenRequest(4, '0xB', 100n))).allowed).toBe(true);
      // Reservations leave the window with time.
      clock.advance(WINDOW + 1);
      expect((await guard.check(tokenRequest(5, '0xA', 100n))).allowed).toBe(true);
    });

    it('does not check a send without a token', async () => {
      const guard = tokenGuard();
      expect(await guard.check(request({ valueWei: 10n ** 30n }))).toMatchObject({ allowed: true, checks: [] });
      expect(await checksIn()).toEqual([]);
      expect(reservations.held()).toEqual([]);
    });
  });
});
