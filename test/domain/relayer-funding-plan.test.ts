import { FUNDING_HORIZON_MS, fundingPlan, MIN_RATE_SPAN_MS, projectBurn, RECENT_SPEND_WINDOW_MS } from '../../src/domain/relayers/funding-plan';
import { newTopupAttempt } from '../../src/domain/relayers/topup';

const DAY = 86_400_000;
const ETHER = 10n ** 18n;

describe('funding plan', () => {
  it('looks back 7 days and plans 7 days ahead, over at least a day of burn', () => {
    expect([RECENT_SPEND_WINDOW_MS, FUNDING_HORIZON_MS, MIN_RATE_SPAN_MS]).toEqual([7 * DAY, 7 * DAY, DAY]);
  });

  it('a relayer spending for the whole window burns the same again over the next 7 days', () => {
    expect(projectBurn(700n, 7 * DAY)).toBe(700n);
    // Entries older than the window are not in it: the span never exceeds the window.
    expect(projectBurn(700n, 30 * DAY)).toBe(700n);
    expect(projectBurn(700n, null)).toBe(700n);
  });

  it('a relayer put to work lately is projected at its own rate, over at least a day', () => {
    expect(projectBurn(200n, 2 * DAY)).toBe(700n);
    expect(projectBurn(100n, DAY)).toBe(700n);
    expect(projectBurn(100n, 60_000)).toBe(700n);
    expect(projectBurn(100n, 0)).toBe(700n);
  });

  it('rounds up to the wei, exactly, whatever the size', () => {
    expect(projectBurn(1n, 3 * DAY)).toBe(3n); // 7/3 wei → 3
    expect(projectBurn(3n, 7 * DAY)).toBe(3n);
    const huge = (1n << 250n) + 1n;
    expect(projectBurn(huge, 2 * DAY)).toBe((huge * 7n + 1n) / 2n);
    expect(projectBurn(0n, DAY)).toBe(0n);
    expect(() => projectBurn(-1n, DAY)).toThrow(RangeError);
  });

  it('low when the balance is below the threshold; the shortfall covers the estimate plus the threshold', () => {
    const recent = { recentGasWei: ETHER / 10n, oldestAgoMs: 7 * DAY };
    expect(fundingPlan({ balanceWei: ETHER / 20n, thresholdWei: ETHER / 10n, ...recent }))
      .toEqual({ lowBalance: true, estimateWei: ETHER / 10n, shortfallWei: ETHER / 5n - ETHER / 20n });
    // At the threshold exactly: not low, but the burn is not covered.
    expect(fundingPlan({ balanceWei: ETHER / 10n, thresholdWei: ETHER / 10n, ...recent }))
      .toEqual({ lowBalance: false, estimateWei: ETHER / 10n, shortfallWei: ETHER / 10n });
    // Covered exactly, and more than covered: no shortfall.
    expect(fundingPlan({ balanceWei: ETHER / 5n, thresholdWei: ETHER / 10n, ...recent }).shortfallWei).toBe(0n);
    expect(fundingPlan({ balanceWei: ETHER, thresholdWei: ETHER / 10n, ...recent }).shortfallWei).toBe(0n);
  });

  it('without a threshold: never low, and the shortfall covers the estimate alone', () => {
    expect(fundingPlan({ balanceWei: 0n, thresholdWei: null, recentGasWei: 0n, oldestAgoMs: null }))
      .toEqual({ lowBalance: false, estimateWei: 0n, shortfallWei: 0n });
    expect(fundingPlan({ balanceWei: 5n, thresholdWei: null, recentGasWei: 7n, oldestAgoMs: 7 * DAY }))
      .toEqual({ lowBalance: false, estimateWei: 7n, shortfallWei: 2n });
  });

  it('an unknown balance: low and shortfall unknown, the estimate still known', () => {
    expect(fundingPlan({ balanceWei: null, thresholdWei: ETHER, recentGasWei: 7n, oldestAgoMs: 7 * DAY }))
      .toEqual({ lowBalance: null, estimateWei: 7n, shortfallWei: null });
  });
});

describe('top-up attempt', () => {
  const fields = {
    topupId: 'r1', at: 0, by: 'alice', from: 'ops', fromAddress: `0x${'aa'.repeat(20)}`, to: 'keeper', toAddress: `0x${'bb'.repeat(20)}`,
    network: 'sepolia', chainId: 11155111, amountWei: 1n,
  };

  it('starts pending, without hash or error', () => {
    expect(newTopupAttempt(fields)).toEqual({ ...fields, outcome: 'pending', txHash: null, error: null });
  });

  it('refuses what no audit row may hold', () => {
    expect(() => newTopupAttempt({ ...fields, amountWei: 0n })).toThrow(/above zero/);
    expect(() => newTopupAttempt({ ...fields, to: 'ops' })).toThrow(/itself/);
    expect(() => newTopupAttempt({ ...fields, toAddress: '0x12' })).toThrow(/addresses/);
    expect(() => newTopupAttempt({ ...fields, topupId: 'bad id' })).toThrow(/id/);
    expect(() => newTopupAttempt({ ...fields, by: '' })).toThrow(/who/);
  });
});
