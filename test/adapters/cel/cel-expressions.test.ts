import { CelExpressions } from '../../../src/adapters/cel';
import { ExpressionError } from '../../../src/application/ports/expressions';

describe('CelExpressions (CEL through @marcbachmann/cel-js)', () => {
  const cel = new CelExpressions();
  const context = { trigger: { payload: { amount: '5', to: '0xab', n: 3, big: '123456789012345678901234567890' } }, steps: { pay: { status: 'succeeded' } } };

  it('evaluates conditions and templates over the run context, ints as CEL ints', () => {
    expect(cel.evaluate('int(trigger.payload.amount) > 0', context)).toBe(true);
    expect(cel.evaluate("steps.pay.status == 'succeeded'", context)).toBe(true);
    expect(cel.evaluate('trigger.payload.n * 2', context)).toBe(6);
    expect(cel.evaluate("{'a': [1, 2]}", context)).toEqual({ a: [1, 2] });
    expect(cel.evaluate('trigger.payload.big', context)).toBe('123456789012345678901234567890');
  });

  it('says why an expression does not parse, and fails evaluation with an ExpressionError', () => {
    expect(cel.check('int((')).toMatch(/Unexpected/);
    expect(cel.check('1 + 2')).toBeUndefined();
    expect(() => cel.evaluate('trigger.payload.missing > 0', context)).toThrow(ExpressionError);
    expect(() => cel.evaluate('int((', context)).toThrow(ExpressionError);
  });
});
