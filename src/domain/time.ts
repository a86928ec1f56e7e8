/** Times are UTC epoch milliseconds in code and RFC 3339 with milliseconds when rendered. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp to epoch ms, or returns undefined when it is not one. Impossible dates
 * (February 30th, hour 24) are refused rather than rolled over as Date.parse would. Fractions finer than a
 * millisecond are truncated. (Hot path of the journal import: no Date.parse, no allocation but the match.)
 */
export function parseRfc3339(text: string): number | undefined {
  // Most journaled times are in toIso's form: read digit by digit (the import reads every event's times twice).
  if (isCanonicalIso(text)) {
    return Date.UTC(digits(text, 0, 4), digits(text, 5, 2) - 1, digits(text, 8, 2), digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2), digits(text, 20, 3));
  }
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

/**
 * An RFC 3339 timestamp rendered as `toIso` renders times (UTC, milliseconds), or null when it is not one: the same
 * as `toIso(parseRfc3339(text))`. Hot in exports, whose journaled times are almost all in that form already: such a
 * text is checked character by character and returned as it is (no regular expression, no Date).
 */
export function isoText(text: string): string | null {
  return isCanonicalIso(text) ? text : toIso(parseRfc3339(text));
}

/** `YYYY-MM-DDTHH:MM:SS.mmmZ`, a possible date and time, year 1000 or later (Date.UTC reads 0-99 as 19xx). */
function isCanonicalIso(t: string): boolean {
  if (t.length !== 24 || t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(10) !== 84 || t.charCodeAt(13) !== 58 ||
    t.charCodeAt(16) !== 58 || t.charCodeAt(19) !== 46 || t.charCodeAt(23) !== 90) return false;
  const year = digits(t, 0, 4);
  const month = digits(t, 5, 2);
  const day = digits(t, 8, 2);
  const hour = digits(t, 11, 2);
  const minute = digits(t, 14, 2);
  const second = digits(t, 17, 2);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  if (digits(t, 20, 3) < 0) return false;
  return day <= 28 || day <= daysInMonth(year, month);
}

/** The decimal number of `count` ASCII digits at `from`, or -1 if one of them is not a digit. */
function digits(t: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const d = t.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Renders epoch ms as RFC 3339 UTC with milliseconds (`2026-11-21T19:10:00.000Z`). */
export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | null;
export function toIso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  // Hot in exports and pages: the date part is formatted once per day, the time part by arithmetic. Past 9999 and
  // before 1970, Date writes it (a six-digit year with its sign, or days counted back).
  const day = Math.floor(ms / DAY_MS);
  if (!Number.isSafeInteger(ms) || day < 0 || day >= DAYS_TO_10000) return new Date(ms).toISOString();
  let prefix = datePrefixes.get(day);
  if (prefix === undefined) {
    // A few days are enough: an item's times (requested, expires a day later, decided) span some, a page a few more.
    if (datePrefixes.size >= MAX_DATE_PREFIXES) datePrefixes.clear();
    datePrefixes.set(day, (prefix = new Date(day * DAY_MS).toISOString().slice(0, 11)));
  }
  const t = ms - day * DAY_MS;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor((t % 3_600_000) / 60_000);
  const s = Math.floor((t % 60_000) / 1000);
  const milli = t % 1000;
  return `${prefix}${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}:${s < 10 ? '0' : ''}${s}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

const DAY_MS = 86_400_000;
/** 10000-01-01 in days since 1970-01-01: from there on, toISOString writes the year with six digits. */
const DAYS_TO_10000 = 2_932_897;
/**
 * `YYYY-MM-DDT` of the days seen last (one day remembered made every other time a Date when an item's times fell on
 * two days, as an approval's requested and expires do: two fifths of an approvals page's cost in a profile).
 */
const datePrefixes = new Map<number, string>();
const MAX_DATE_PREFIXES = 1024;
