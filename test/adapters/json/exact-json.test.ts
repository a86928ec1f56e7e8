import { parseExactJson } from '../../../src/adapters/json';
import { parseInput } from '../../../src/adapters/cli/commands/run';

describe('exact JSON (CONTRACT 8.8: a number beyond 2^53 is never rounded)', () => {
  it('keeps an integer beyond 2^53 as its exact decimal text, at any depth', () => {
    // What JSON.parse makes of it: one wei less than asked.
    expect(BigInt(JSON.parse('1152921504606846977') as number).toString()).toBe('1152921504606846976');
    expect(parseExactJson('{"amount": 1152921504606846977, "to": "0xab"}')).toEqual({ amount: '1152921504606846977', to: '0xab' });
    expect(parseExactJson('[9007199254740993, {"x": [115792089237316195423570985008687907853269984665640564039457584007913129639935]}]'))
      .toEqual(['9007199254740993', { x: ['115792089237316195423570985008687907853269984665640564039457584007913129639935'] }]);
    expect(parseExactJson('-9007199254740993')).toBe('-9007199254740993');
  });

  it('leaves numbers a JS number holds exactly as numbers, and the rest of JSON as JSON.parse does', () => {
    expect(parseExactJson('{"n": 9007199254740991, "m": -5, "d": 0.25, "z": 0, "s": "1", "b": true, "nil": null}'))
      .toEqual({ n: 9007199254740991, m: -5, d: 0.25, z: 0, s: '1', b: true, nil: null });
  });

  it('keeps the text of a decimal that a double would round', () => {
    expect(parseExactJson('{"price": 0.10000000000000000000001}')).toEqual({ price: '0.10000000000000000000001' });
  });

  it('refuses text that is not JSON, and a key given twice with different values (which amount was meant?)', () => {
    expect(() => parseExactJson('{amount: 1}')).toThrow(SyntaxError);
    expect(() => parseExactJson('')).toThrow(SyntaxError);
    expect(() => parseExactJson('{"amount": 1, "amount": 1000}')).toThrow(/Duplicate key/);
  });

  it('reads --input of chainflow run / chainflow test exactly, and names the flag when it is not JSON', () => {
    expect(parseInput('{"amount": 1152921504606846977}')).toEqual({ amount: '1152921504606846977' });
    expect(parseInput(undefined)).toBeUndefined();
    expect(() => parseInput('{nope')).toThrow('--input: must be JSON');
  });
});
