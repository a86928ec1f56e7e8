import { InvalidInputError } from '../../src/domain/errors';
import { formatNative, formatWeiDecimal, parseAmount, parseWeiDecimal } from '../../src/domain/wei';

function refusal(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('expected an InvalidInputError');
}

describe('parseAmount', () => {
  it.each<[string | number | bigint, bigint]>([
    ['0.2 ether', 200000000000000000n],
    ['0.05 ether', 50000000000000000n],
    ['1 ether', 1000000000000000000n],
    ['1.5 gwei', 1500000000n],
    ['1.5gwei', 1500000000n],
    ['12 wei', 12n],
    ['12.000 wei', 12n],
    ['0.000000000000000001 ether', 1n],
    ['123456789.123456789123456789 ether', 123456789123456789123456789n],
    ['200000000000000000', 200000000000000000n],
    ['0', 0n],
    [21000, 21000n],
    [0, 0n],
    [5n, 5n],
  ])('reads %p as %p wei', (literal, wei) => {
    expect(parseAmount(literal, 'amount')).toBe(wei);
  });

  it('refuses a fraction finer than 1 wei', () => {
    const error = refusal(() => parseAmount('0.0000000000000000001 ether', 'relayers.ops.low_balance'));
    expect(error.field).toBe('relayers.ops.low_balance');
    expect(error.reason).toMatch(/finer than 1 wei/);
    expect(() => parseAmount('1.5 wei', 'x')).toThrow(/finer than 1 wei/);
    expect(() => parseAmount('0.0000000001 gwei', 'x')).toThrow(/finer than 1 wei/);
  });

  it.each<[string | number | bigint]>([
    ['-1'],
    ['-0.2 ether'],
    ['1e18'],
    ['2e-1 ether'],
    [''],
    ['   '],
    ['0.2'],
    ['0.2  ether'],
    ['0.2 ETH'],
    ['.5 ether'],
    ['ether'],
    ['0x10'],
    [-1],
    [1.5],
    [2e17],
    [-3n],
  ])('refuses %p', (literal) => {
    expect(refusal(() => parseAmount(literal, 'budgets.b.max_gas_spend')).field).toBe('budgets.b.max_gas_spend');
  });
});

describe('formatNative', () => {
  it('prints the native unit with trailing zeros dropped', () => {
    expect(formatNative(200000000000000000n)).toBe('0.2 ETH');
    expect(formatNative(1000000000000000000n)).toBe('1 ETH');
    expect(formatNative(0n)).toBe('0 ETH');
    expect(formatNative(2n * 10n ** 18n, 'POL')).toBe('2 POL');
  });

  it('truncates to maxFractionDigits (default 6) without rounding up', () => {
    expect(formatNative(1234567890000000000n)).toBe('1.234567 ETH');
    expect(formatNative(999999999999999999n)).toBe('0.999999 ETH');
    expect(formatNative(1234567890000000000n, 'ETH', 2)).toBe('1.23 ETH');
    expect(formatNative(1500000000000000000n, 'ETH', 0)).toBe('1 ETH');
    expect(formatNative(1n)).toBe('0 ETH');
  });

  it('prints the exact value with Infinity digits', () => {
    expect(formatNative(1n, 'ETH', Infinity)).toBe('0.000000000000000001 ETH');
    expect(formatNative(123456789123456789123456789n, 'ETH', Infinity)).toBe('123456789.123456789123456789 ETH');
  });

  it('keeps the sign of a negative amount', () => {
    expect(formatNative(-500000000000000000n)).toBe('-0.5 ETH');
    expect(formatNative(-1n)).toBe('0 ETH');
  });
});

describe('formatWeiDecimal / parseWeiDecimal', () => {
  it('round-trips large values exactly', () => {
    const wei = 123456789123456789123456789n;
    expect(formatWeiDecimal(wei)).toBe('123456789123456789123456789');
    expect(parseWeiDecimal(formatWeiDecimal(wei), 'value_wei')).toBe(wei);
  });

  it('reads 0x-hex receipt numbers', () => {
    expect(parseWeiDecimal('0x5208', 'receipt.gasUsed')).toBe(21000n);
    expect(parseWeiDecimal('0xDE0B6B3A7640000', 'x')).toBe(10n ** 18n);
    expect(parseWeiDecimal('0', 'x')).toBe(0n);
  });

  it.each(['', '-1', '1.5', '1e3', ' 1', '0x', '0xg1', '12 wei'])('refuses %p naming the field', (text) => {
    expect(refusal(() => parseWeiDecimal(text, 'receipt.gasUsed')).field).toBe('receipt.gasUsed');
  });
});
