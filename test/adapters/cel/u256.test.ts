import { CelExpressions } from '../../../src/adapters/cel';
import { ExpressionError } from '../../../src/application/ports/expressions';

const MAX = ((1n << 256n) - 1n).toString();
const TEN_TOKENS = '10000000000000000000';

describe('u256 in CEL expressions (CONTRACT 8.8)', () => {
  const cel = new CelExpressions();
  const context = { trigger: { payload: { amount: TEN_TOKENS, small: '7', n: 3, max: MAX } } };
  const evaluate = (source: string): unknown => cel.evaluate(source, context);
  const failure = (source: string): string => {
    try {
      evaluate(source);
    } catch (err) {
      expect(err).toBeInstanceOf(ExpressionError);
      return (err as Error).message;
    }
    throw new Error(`${source} did not fail`);
  };

  it('builds from a digit string, an int or a u256, and renders as its decimal string', () => {
    expect(evaluate('u256("1000000000000000000000")')).toBe('1000000000000000000000');
    expect(evaluate('u256(trigger.payload.amount)')).toBe(TEN_TOKENS);
    expect(evaluate('u256(trigger.payload.n)')).toBe('3');
    expect(evaluate('u256(u256(5))')).toBe('5');
    expect(evaluate('u256(trigger.payload.max)')).toBe(MAX);
    expect(evaluate('string(u256(12))')).toBe('12');
  });

  it.each([
    ['u256(trigger.payload.amount) + u256(1)', '10000000000000000001'],
    ['u256(trigger.payload.amount) + 1', '10000000000000000001'],
    ['1 + u256(trigger.payload.amount)', '10000000000000000001'],
    ['u256(trigger.payload.amount) - u256(1)', '9999999999999999999'],
    ['u256(trigger.payload.amount) - 1', '9999999999999999999'],
    ['20000000 - u256(1)', '19999999'],
    ['u256(trigger.payload.amount) * u256(3)', '30000000000000000000'],
    ['u256(trigger.payload.amount) * 3', '30000000000000000000'],
    ['3 * u256(trigger.payload.amount)', '30000000000000000000'],
    ['u256(trigger.payload.amount) / u256(3)', '3333333333333333333'],
    ['u256(trigger.payload.amount) / 4', '2500000000000000000'],
    ['100 / u256(7)', '14'],
    ['u256(trigger.payload.amount) % u256(3)', '1'],
    ['u256(trigger.payload.amount) % 7', '3'],
    ['100 % u256(7)', '2'],
  ])('%s = %s', (source, expected) => {
    expect(evaluate(source)).toBe(expected);
  });

  it.each([
    ['u256(trigger.payload.amount) == u256("10000000000000000000")', true],
    ['u256(trigger.payload.amount) == 10', false],
    ['7 == u256(trigger.payload.small)', true],
    ['u256(trigger.payload.amount) != u256(1)', true],
    ['u256(trigger.payload.small) != 7', false],
    ['7 != u256(trigger.payload.small)', false],
    ['u256(trigger.payload.small) < u256(trigger.payload.amount)', true],
    ['u256(trigger.payload.small) < 7', false],
    ['6 < u256(trigger.payload.small)', true],
    ['u256(trigger.payload.small) <= u256(7)', true],
    ['u256(trigger.payload.small) <= 6', false],
    ['7 <= u256(trigger.payload.small)', true],
    ['u256(trigger.payload.amount) > u256("9999999999999999999")', true],
    ['u256(trigger.payload.amount) > 0', true],
    ['0 > u256(trigger.payload.amount)', false],
    ['u256(trigger.payload.small) >= u256(8)', false],
    ['u256(trigger.payload.small) >= 7', true],
    ['-1 >= u256(0)', false],
  ])('%s is %s', (source, expected) => {
    expect(evaluate(source)).toBe(expected);
  });

  it('refuses overflow, underflow and division by zero, naming the operation and its values', () => {
    expect(failure('u256(trigger.payload.max) + 1')).toBe(`u256 overflow: ${MAX} + 1 is above 2^256-1`);
    expect(failure('u256(trigger.payload.max) * u256(2)')).toBe(`u256 overflow: ${MAX} * 2 is above 2^256-1`);
    expect(failure(`u256("${(1n << 256n).toString()}")`)).toBe(`u256 overflow: u256(${(1n << 256n).toString()}) is above 2^256-1`);
    expect(failure('u256(trigger.payload.small) - u256(8)')).toBe('u256 underflow: 7 - 8 is below 0');
    expect(failure('1 - u256(2)')).toBe('u256 underflow: 1 - 2 is below 0');
    expect(failure('u256(-1)')).toBe('u256 underflow: u256(-1) is below 0');
    expect(failure('u256("-5")')).toBe('u256 underflow: u256(-5) is below 0');
    expect(failure('u256(trigger.payload.amount) / 0')).toBe(`u256 division by zero: ${TEN_TOKENS} / 0`);
    expect(failure('u256(trigger.payload.amount) % u256(0)')).toBe(`u256 modulo by zero: ${TEN_TOKENS} % 0`);
    expect(failure('u256("12abc")')).toBe('u256(): "12abc" is not a decimal integer');
  });

  it('int() takes a digit string and says when a number is beyond int64', () => {
    expect(evaluate('int(trigger.payload.small) > 0')).toBe(true);
    expect(failure('int(trigger.payload.amount) > 0')).toBe(`int(): ${TEN_TOKENS} is beyond int64; use u256(...)`);
    expect(failure('int(u256(trigger.payload.amount))')).toBe(`int(): ${TEN_TOKENS} is beyond int64; use u256(...)`);
    expect(evaluate('int(u256(trigger.payload.small)) + 1')).toBe(8);
    // Not a number at all: the library's own message stands.
    expect(failure('int("abc")')).toMatch(/cannot convert to int/);
  });

  it('checks expressions that use u256 when the config loads', () => {
    expect(cel.check('u256(trigger.payload.amount) > u256("10000000000000000000")')).toBeUndefined();
    expect(cel.check('u256(trigger.payload.amount) * 2 >= 1')).toBeUndefined();
    expect(cel.check('u256((')).toMatch(/Unexpected/);
  });

  it('mixes u256 with other types only where defined', () => {
    expect(failure('u256(1) + "a"')).toMatch(/no such overload/);
    expect(failure('u256(1.5)')).toMatch(/no matching overload/);
  });
});
