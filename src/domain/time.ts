/** Times are UTC epoch milliseconds in code and RFC 3339 with milliseconds when rendered. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp to epoch ms, or returns undefined when it is not one. Impossible dates
 * (February 30th, hour 24) are refused rather than rolled over as Date.parse would. Fractions finer than a
 * millisecond are truncated. (Hot path of the journal import: no Date.parse, no allocation but the match.)
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const year = +m[1]!;
  const month = +m[2]!;
  const day = +m[3]!;
  const hour = +m[4]!;
  const minute = +m[5]!;
  const second = +m[6]!;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > 28 && day > daysInMonth(year, month)) return undefined;
  const ms = m[7] === undefined ? 0 : +m[7].slice(0, 3).padEnd(3, '0');
  let offset = 0;
  if (m[8] === undefined) {
    const offHours = +m[10]!;
    const offMinutes = +m[11]!;
    if (offHours > 23 || offMinutes > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (offHours * 60 + offMinutes) * 60_000;
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Renders epoch ms as RFC 3339 UTC with milliseconds (`2026-11-21T19:10:00.000Z`). */
export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | null;
export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
