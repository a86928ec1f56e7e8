/**
 * Budget headroom (issue 30): each cap as the send path's guard counts it, split into what the ledger recorded and
 * what sends in flight reserve, and what is left; the view itself reserves nothing.
 */
import type { BudgetConfig, ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { BudgetGuard, type BudgetCheckRequest } from '../../src/application/spend/budget-guard.use-case';
import { ListBudgets } from '../../src/application/spend/list-budgets.use-case';
import { anEntry } from '../contract/spend.contract';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryBudgetReservations, InMemorySpendLedger } from '../fakes/in-memory-spend';
import { HOUR, iso, T0 } from '../mothers/journal-events';
import { aSend, aWorkflow } from '../mothers/workflows';

const WINDOW = 24 * HOUR;
const TOKEN = '0x' + 'Ab'.repeat(20);

function configOf(budgets: BudgetConfig[]): ChainflowConfig {
  const payouts = aWorkflow({ name: 'payouts', steps: [aSend('pay', { to: TOKEN, value: '0', call: { function: 'transfer(address,uint256)', args: ['0x' + '11'.repeat(20), '5'] } })] });
  const workflows: [string, WorkflowConfig][] = [
    ['payouts', { name: 'payouts', budgets: budgets.map((b) => b.name), definition: {}, engine: payouts }],
    ['keeper', { name: 'keeper', budgets: [], definition: {} }],
  ];
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map(), relayers: new Map(), budgets: new Map(budgets.map((b) => [b.name, b])), workflows: new Map(workflows), secretValues: [],
  };
}

describe('ListBudgets', () => {
  const daily: BudgetConfig = { name: 'daily', windowMs: WINDOW, maxGasSpendWei: 1000n, maxNativeValueWei: 100n, scope: { relayers: ['ops'] } };
  const tokens: BudgetConfig = { name: 'tokens', windowMs: WINDOW, maxTokenValue: 50n, scope: {} };
  let spend: InMemorySpendLedger;
  let journal: InMemoryJournal;
  let reservations: InMemoryBudgetReservations;
  let clock: FixedClock;
  let config: ChainflowConfig;
  const request = (overrides: Partial<BudgetCheckRequest>): BudgetCheckRequest => ({
    runId: 'f1', stepRunId: 'f1.pay', sendId: 'f1.send', workflow: 'payouts', relayer: 'ops', valueWei: 0n, ...overrides,
  });

  beforeEach(async () => {
    spend = new InMemorySpendLedger();
    journal = new InMemoryJournal({ spend });
    reservations = InMemoryBudgetReservations.over(journal);
    clock = new FixedClock(T0);
    config = configOf([daily, tokens]);
    await journal.append([{ type: 'run.started', at: iso(T0 - HOUR), run_id: 'f1', workflow: 'payouts', session: 'live', trigger: { kind: 'manual' } }]);
    // f1 is in flight: 40 wei and 20 token units reserved by the guard.
    const guard = new BudgetGuard(config, spend, reservations, journal, clock);
    expect((await guard.evaluate(request({ valueWei: 40n, token: { address: TOKEN, amount: 20n } }))).allowed).toBe(true);
    await spend.append([
      anEntry({ stepRunId: 'v.pay', gasSpendWei: 7n, valueWei: 30n, recordedAt: T0 - HOUR }),
      anEntry({ stepRunId: 'old.pay', gasSpendWei: 5000n, valueWei: 1000n, recordedAt: T0 - WINDOW - 1 }),
      anEntry({ stepRunId: 'hot.pay', gasSpendWei: 5000n, valueWei: 1000n, relayer: 'hot' }),
      anEntry({ stepRunId: 'keeper.pay', gasSpendWei: 5000n, valueWei: 1000n, workflow: 'keeper' }),
    ]);
  });

  it('lists each budget by name with its window and each cap\'s spent, reserved, cap and headroom as decimal strings', async () => {
    const held = reservations.held();
    const page = await new ListBudgets(config, spend, reservations, clock).execute();
    expect(page).toEqual({
      cursor: null, has_more: false,
      items: [
        {
          budget: 'daily', window: '1d', window_start: iso(T0 - WINDOW), relayers: ['ops'], workflows: ['payouts'],
          caps: [
            { kind: 'max_gas_spend', token: null, spent: '7', reserved: '0', cap: '1000', headroom: '993' },
            { kind: 'max_native_value', token: null, spent: '30', reserved: '40', cap: '100', headroom: '30' },
          ],
        },
        {
          budget: 'tokens', window: '1d', window_start: iso(T0 - WINDOW), relayers: null, workflows: ['payouts'],
          caps: [{ kind: 'max_token_value', token: TOKEN.toLowerCase(), spent: null, reserved: '20', cap: '50', headroom: '30' }],
        },
      ],
    });
    // Read through the guard's own step, with a refusing decision: nothing reserved, nothing released.
    expect(reservations.held()).toEqual(held);
  });

  it('headroom is never below 0, however far over the cap', async () => {
    await spend.append([anEntry({ stepRunId: 'big.pay', gasSpendWei: 10n ** 30n, valueWei: 10n ** 30n })]);
    const [budget] = (await new ListBudgets(config, spend, reservations, clock).execute()).items;
    expect(budget!.caps.map((c) => c.headroom)).toEqual(['0', '0']);
    expect(budget!.caps[1]!.spent).toBe((10n ** 30n + 30n).toString());
  });

  it('refuses an unknown parameter naming it', async () => {
    await expect(new ListBudgets(config, spend, reservations, clock).execute({ limit: '5' })).rejects.toThrow('limit');
  });
});
