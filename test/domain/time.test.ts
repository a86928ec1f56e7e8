import fc from 'fast-check';
import { isoText, parseRfc3339, toIso } from '../../src/domain/time';

describe('parseRfc3339', () => {
  it('reads UTC and offset timestamps, with or without fractions', () => {
    expect(parseRfc3339('2026-03-01T12:00:00Z')).toBe(Date.UTC(2026, 2, 1, 12));
    expect(parseRfc3339('2026-03-01T12:00:00.250Z')).toBe(Date.UTC(2026, 2, 1, 12, 0, 0, 250));
    expect(parseRfc3339('2026-03-01T14:00:00+02:00')).toBe(Date.UTC(2026, 2, 1, 12));
    expect(parseRfc3339('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
  });

  it.each(['2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z', '2026-01-01T00:00:00+25:00', '2026-01-01', 'yesterday', '2026-01-01T00:00:00'])('refuses %s', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });

  it('renders RFC 3339 UTC with milliseconds', () => {
    expect(toIso(Date.UTC(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02T03:04:05.006Z');
    expect(toIso(null)).toBeNull();
  });
});

describe('parseRfc3339 agrees with Date.parse on valid input', () => {
  it.each(['2026-03-01T12:00:00.123456789Z', '1999-12-31T23:59:59-05:30', '2000-02-29T00:00:00.5+00:00', '2026-11-21 19:10:00Z'])('%s', (text) => {
    expect(parseRfc3339(text)).toBe(Date.parse(text.replace(' ', 'T')));
  });
});

describe("parseRfc3339 of toIso's form (read digit by digit)", () => {
  it('is Date.parse, and the same time written with a +00:00 offset (read by the general pattern)', () => {
    fc.assert(fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (ms) => {
      const text = new Date(ms).toISOString();
      expect(parseRfc3339(text)).toBe(ms);
      expect(parseRfc3339(text.replace('Z', '+00:00'))).toBe(ms);
    }), { numRuns: 2000 });
  });

  it.each(['2026-02-30T00:00:00.000Z', '2025-02-29T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z',
    '2026-01-01T00:60:00.000Z', '2026-01-01T00:00:60.000Z', '2026-01-01T00:00:00.0a0Z', '2026-01-01T00:00:00.000z'])('refuses or reads as the pattern does: %s', (text) => {
    expect(parseRfc3339(text)).toBe(text.endsWith('z') ? Date.UTC(2026, 0, 1) : undefined);
  });
});

describe('toIso agrees with Date#toISOString', () => {
  it.each([0, 1, 999, 86_399_999, 86_400_000, Date.UTC(2026, 10, 21, 19, 10, 5, 7), Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(1999, 11, 31, 0, 0, 0, 50)])('%d', (ms) => {
    expect(toIso(ms)).toBe(new Date(ms).toISOString());
  });

  it('falls back for times before 1970 and past 9999', () => {
    expect(toIso(-1)).toBe('1969-12-31T23:59:59.999Z');
    const y10k = Date.UTC(10000, 0, 1);
    expect(toIso(y10k - 1)).toBe('9999-12-31T23:59:59.999Z');
    expect(toIso(y10k)).toBe('+010000-01-01T00:00:00.000Z');
    expect(toIso(y10k + 86_400_001)).toBe(new Date(y10k + 86_400_001).toISOString());
  });

  it('agrees however its times alternate between days, and past the days it keeps', () => {
    const times: number[] = [];
    for (let k = 0; k < 3000; k++) times.push(Date.UTC(2026, 0, 1) + ((k * 7919) % 2000) * 86_400_000 + ((k * 104_729) % 86_400_000));
    for (const ms of times) expect(toIso(ms)).toBe(new Date(ms).toISOString());
    for (const ms of times.reverse()) expect(toIso(ms)).toBe(new Date(ms).toISOString());
  });
});

describe('isoText is toIso(parseRfc3339(text))', () => {
  it.each([
    '2026-11-21T19:10:05.007Z', '2024-02-29T23:59:59.999Z', '1999-12-31T00:00:00.050Z', '1969-12-31T23:59:59.999Z',
    '2026-03-01T14:00:00+02:00', '2026-03-01T12:00:00.123456789Z', '2026-11-21 19:10:00Z', '2026-11-21t19:10:00.000z',
    '2026-02-30T00:00:00.000Z', '2025-02-29T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z',
    '2026-01-01T00:60:00.000Z', '2026-01-01T00:00:60.000Z', '2026-01-01T0-:00:00.000Z', '2026-01-01T00:00:00.0a0Z',
    '0050-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000+', 'yesterday',
  ])('%s', (text) => {
    expect(isoText(text)).toBe(toIso(parseRfc3339(text)));
  });

  it('returns a text already in that form as it is, and null for one that is no time', () => {
    expect(isoText('2026-11-21T19:10:05.007Z')).toBe('2026-11-21T19:10:05.007Z');
    expect(isoText('2026-11-21T21:10:05+02:00')).toBe('2026-11-21T19:10:05.000Z');
    expect(isoText('2026-02-30T00:00:00.000Z')).toBeNull();
  });
});
