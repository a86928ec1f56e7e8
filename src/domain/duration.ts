import { InvalidInputError } from './errors';

/** Milliseconds per duration unit, largest first (the order {@link formatDuration} tries them). */
const UNIT_MS: ReadonlyArray<readonly [string, number]> = [
  ['w', 7 * 24 * 60 * 60 * 1000],
  ['d', 24 * 60 * 60 * 1000],
  ['h', 60 * 60 * 1000],
  ['m', 60 * 1000],
  ['s', 1000],
];

const DURATION = /^([0-9]+)([smhdw])$/;

/**
 * Parses `<integer><unit>` into milliseconds; unit is `s`, `m`, `h`, `d` or `w` (`30s`, `24h`, `7d`).
 *
 * Refused: zero (a window of 0 is meaningless), signs, fractions, spaces, other units, empty text,
 * and values too large to hold exactly in milliseconds.
 *
 * @param field names the parameter or config path, used in the error.
 * @throws InvalidInputError(field, reason)
 */
export function parseDuration(text: string, field: string): number {
  const match = typeof text === 'string' ? DURATION.exec(text) : null;
  if (!match) {
    throw new InvalidInputError(field, 'is not a duration: use <integer><unit> with unit s, m, h, d or w (e.g. 24h, 7d)');
  }
  const count = Number(match[1]);
  const unitMs = UNIT_MS.find(([unit]) => unit === match[2])![1];
  const ms = count * unitMs;
  if (count === 0) throw new InvalidInputError(field, 'duration must be greater than zero');
  if (!Number.isSafeInteger(ms)) throw new InvalidInputError(field, 'duration is too large');
  return ms;
}

/**
 * Renders milliseconds in the largest unit that divides them exactly (`86400000` → `1d`,
 * `90000` → `90s`), the inverse of {@link parseDuration}. Amounts that are not whole seconds
 * (or not positive) fall back to `<ms>ms`, which parseDuration does not accept.
 */
export function formatDuration(ms: number): string {
  if (Number.isSafeInteger(ms) && ms > 0) {
    for (const [unit, unitMs] of UNIT_MS) {
      if (ms % unitMs === 0) return `${ms / unitMs}${unit}`;
    }
  }
  return `${ms}ms`;
}
