/** Times are UTC epoch milliseconds in code and RFC 3339 with milliseconds when rendered. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 timestamp to epoch ms, or returns undefined when it is not one. */
export function parseRfc3339(text: string): number | undefined {
  if (!RFC3339.test(text)) return undefined;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isFinite(ms) ? ms : undefined;
}

/** Renders epoch ms as RFC 3339 UTC with milliseconds (`2026-11-21T19:10:00.000Z`). */
export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | null;
export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
