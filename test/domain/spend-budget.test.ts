import { charges, gasCheck, refusal, reservationCheck, type BudgetRule } from '../../src/domain/spend/budget';

const rule = (overrides: Partial<BudgetRule> = {}): BudgetRule => ({
  name: 'daily', windowMs: 86_400_000, maxGasSpendWei: 100n, workflows: ['payouts'], relayers: ['ops'], ...overrides,
});

describe('charges: which sends a budget charges', () => {
  it('charges a send whose workflow lists the budget and whose relayer is in scope', () => {
    expect(charges(rule(), 'payouts', 'ops')).toBe(true);
  });

  it('does not charge a workflow that does not list the budget', () => {
    expect(charges(rule(), 'keeper', 'ops')).toBe(false);
  });

  it('does not charge a relayer outside the scope', () => {
    expect(charges(rule(), 'payouts', 'treasury')).toBe(false);
  });

  it('charges every relayer when the scope names none, and none when the list is empty', () => {
    expect(charges(rule({ relayers: undefined }), 'payouts', 'treasury')).toBe(true);
    expect(charges(rule({ relayers: [] }), 'payouts', 'ops')).toBe(false);
    expect(charges(rule({ relayers: undefined, workflows: [] }), 'payouts', 'ops')).toBe(false);
  });
});

describe('gasCheck: a circuit breaker on recorded gas spend', () => {
  it('allows below the cap and refuses once the cap is reached', () => {
    expect(gasCheck('daily', 99n, 100n)).toEqual({ budget: 'daily', cap: 'max_gas_spend', spentWei: 99n, capWei: 100n, requestWei: 0n, allowed: true });
    expect(gasCheck('daily', 100n, 100n).allowed).toBe(false);
    expect(gasCheck('daily', 101n, 100n).allowed).toBe(false);
  });

  it('compares exactly beyond 64 bits', () => {
    const cap = (1n << 200n) + 1n;
    expect(gasCheck('big', 1n << 200n, cap).allowed).toBe(true);
    expect(gasCheck('big', cap, cap).allowed).toBe(false);
  });
});

describe('reservationCheck: value caps', () => {
  it('allows up to and including the cap, refuses above', () => {
    expect(reservationCheck('daily', 'max_native_value', 60n, 40n, 100n)).toEqual({
      budget: 'daily', cap: 'max_native_value', spentWei: 60n, capWei: 100n, requestWei: 40n, allowed: true,
    });
    expect(reservationCheck('daily', 'max_native_value', 60n, 41n, 100n).allowed).toBe(false);
    expect(reservationCheck('daily', 'max_native_value', 101n, 0n, 100n).allowed).toBe(false);
  });

  it('names the token of a token cap', () => {
    expect(reservationCheck('daily', 'max_token_value', 0n, 5n, 10n, '0xtoken')).toMatchObject({ token: '0xtoken', allowed: true });
    expect(reservationCheck('daily', 'max_native_value', 0n, 5n, 10n)).not.toHaveProperty('token');
  });
});

describe('refusal', () => {
  it('is undefined when every cap allows', () => {
    expect(refusal([])).toBeUndefined();
    expect(refusal([gasCheck('a', 1n, 2n), reservationCheck('a', 'max_native_value', 0n, 1n, 1n)])).toBeUndefined();
  });

  it('explains the first refusing cap with its budget and amounts', () => {
    const gas = refusal([gasCheck('ok', 1n, 2n), gasCheck('daily_gas', 250n, 200n), reservationCheck('other', 'max_native_value', 9n, 9n, 1n)]);
    expect(gas).toContain("budget 'daily_gas'");
    expect(gas).toContain('250');
    expect(gas).toContain('200');
    expect(gas).toContain('max_gas_spend');
    const native = refusal([reservationCheck('vals', 'max_native_value', 70n, 31n, 100n)])!;
    expect(native).toMatch(/budget 'vals'.*native value 70 reserved \+ 31 requested exceeds max_native_value 100/);
    const token = refusal([reservationCheck('tok', 'max_token_value', 7n, 4n, 10n, '0xabc')])!;
    expect(token).toContain('token 0xabc');
    expect(token).toContain('max_token_value');
  });
});
