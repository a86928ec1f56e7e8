import { bumpFees, capFees, maxGasCost, type Fees } from '../../src/domain/chain/fees';
import { gasPaid, journalReceipt } from '../../src/domain/chain/tx-receipt';

const GWEI = 10n ** 9n;
const eip = (maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): Fees => ({ kind: 'eip1559', maxFeePerGas, maxPriorityFeePerGas });

describe('fees of replacements', () => {
  it('raises both fields by 12.5%, rounded up to the wei', () => {
    expect(bumpFees(eip(3n * GWEI, GWEI), eip(GWEI, 1n), undefined)).toEqual(eip(3_375_000_000n, 1_125_000_000n));
    expect(bumpFees(eip(7n, 1n), eip(1n, 1n), undefined)).toEqual(eip(8n, 2n));
    expect(bumpFees({ kind: 'legacy', gasPrice: 10n * GWEI }, { kind: 'legacy', gasPrice: GWEI }, undefined)).toEqual({ kind: 'legacy', gasPrice: 11_250_000_000n });
  });

  it('takes the market\'s fees when they are higher than the raise', () => {
    expect(bumpFees(eip(3n * GWEI, GWEI), eip(10n * GWEI, 2n * GWEI), undefined)).toEqual(eip(10n * GWEI, 2n * GWEI));
  });

  it('never offers more than the cap, and gives up when the cap leaves less than the full 12.5% raise', () => {
    expect(bumpFees(eip(3n * GWEI, GWEI), eip(4n * GWEI, 1n), 3_500_000_000n)).toEqual(eip(3_500_000_000n, 1_125_000_000n));
    expect(bumpFees(eip(3n * GWEI, GWEI), eip(GWEI, 1n), 3_375_000_000n)).toEqual(eip(3_375_000_000n, 1_125_000_000n));
    // A 6.7% raise would be refused as underpriced: nothing is signed.
    expect(bumpFees(eip(3n * GWEI, GWEI), eip(GWEI, 1n), 3_200_000_000n)).toBeUndefined();
    expect(bumpFees({ kind: 'legacy', gasPrice: 10n * GWEI }, { kind: 'legacy', gasPrice: GWEI }, 11n * GWEI)).toBeUndefined();
    expect(bumpFees(eip(3n * GWEI, GWEI), eip(GWEI, 1n), 3n * GWEI)).toBeUndefined();
    expect(capFees(eip(5n * GWEI, 6n * GWEI), 4n * GWEI)).toEqual(eip(4n * GWEI, 4n * GWEI));
    expect(capFees({ kind: 'legacy', gasPrice: 9n }, undefined)).toEqual({ kind: 'legacy', gasPrice: 9n });
  });

  it('the most a transaction can pay for gas', () => {
    expect(maxGasCost(eip(3n * GWEI, GWEI), 21_000n)).toBe(63_000n * GWEI);
  });
});

describe('typed receipts', () => {
  it('map to the journal\'s decimal strings, exactly, and pay gasUsed × price + l1Fee', () => {
    const receipt = { status: false, blockNumber: 7n, gasUsed: 2n ** 70n, effectiveGasPrice: 3n, l1Fee: 5n };
    expect(journalReceipt(receipt)).toEqual({ status: 0, blockNumber: '7', gasUsed: (2n ** 70n).toString(), effectiveGasPrice: '3', l1Fee: '5' });
    expect(gasPaid(receipt)).toBe(3n * 2n ** 70n + 5n);
    expect(gasPaid({ status: true, blockNumber: 1n, gasUsed: 10n, gasPrice: 4n })).toBe(40n);
  });
});
