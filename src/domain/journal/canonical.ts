import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so that the same event always has the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    if (i) out += ',';
    out += `${JSON.stringify(keys[i])}:${canonicalJson(obj[keys[i]!])}`;
  }
  return `${out}}`;
}

/** Identity of an event's content: applying the same content twice is a no-op (import is idempotent). */
export function eventHash(canonical: string): string {
  return createHash('sha1').update(canonical).digest('base64url');
}
