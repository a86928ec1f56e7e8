import { hash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so that the same event always has the same text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + (value[i] === undefined ? 'null' : canonicalJson(value[i]));
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${typeof v === 'string' ? JSON.stringify(v) : canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** Identity of an event's content: applying the same content twice is a no-op (import is idempotent). */
export function eventHash(canonical: string): string {
  return hash('sha1', canonical, 'base64url');
}
