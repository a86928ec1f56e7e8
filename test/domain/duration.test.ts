import { formatDuration, parseDuration } from '../../src/domain/duration';
import { InvalidInputError } from '../../src/domain/errors';

describe('parseDuration', () => {
  it.each<[string, number]>([
    ['30s', 30_000],
    ['15m', 900_000],
    ['24h', 86_400_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
    ['90s', 90_000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text, 'window')).toBe(ms);
  });

  const refused = ['0s', '0h', '-1h', '+1h', '1.5h', '24 h', 'h', '24', '', '1y', '1ms', '24H', ' 24h', '1e3s'];
  it.each([...refused, '99999999999999w'])(
    'refuses %p with an error naming the field',
    (text) => {
      let caught: unknown;
      try {
        parseDuration(text, 'budgets.daily_gas.window');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidInputError);
      expect((caught as InvalidInputError).field).toBe('budgets.daily_gas.window');
      expect((caught as InvalidInputError).message).toMatch(/^budgets\.daily_gas\.window: /);
    },
  );
});

describe('formatDuration', () => {
  it.each<[number, string]>([
    [604_800_000, '1w'],
    [86_400_000, '1d'],
    [172_800_000 + 3_600_000, '49h'],
    [90_000, '90s'],
    [60_000, '1m'],
    [1_500, '1500ms'],
    [0, '0ms'],
  ])('prints %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('is the inverse of parseDuration, in the largest exact unit', () => {
    for (const text of ['30s', '15m', '25h', '6d', '2w']) {
      expect(formatDuration(parseDuration(text, 'w'))).toBe(text);
    }
    expect(formatDuration(parseDuration('24h', 'w'))).toBe('1d');
    expect(parseDuration(formatDuration(86_400_000), 'w')).toBe(86_400_000);
  });
});
