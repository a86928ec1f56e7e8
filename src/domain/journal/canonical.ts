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

/**
 * The keys seen so far in events of each type, at any depth, sorted: what `canonicalEventJson` gives JSON.stringify
 * as its list of properties. A list is written again only when a new key appears.
 */
interface KeyList {
  readonly keys: Set<string>;
  sorted: string[] | undefined;
}
const keysByType = new Map<unknown, KeyList>();
/** A type whose events bring more keys than this (free-form outputs with keys of their own) takes `canonicalJson`. */
const MAX_LISTED_KEYS = 64;

/**
 * `canonicalJson(event)`, text for text, in about half its time (an import computes it for every event): JSON.stringify
 * given a list of properties writes, at every depth, only the keys of that list and in its order, so a sorted list
 * holding every key of the event is its canonical text. Values JSON.stringify would write otherwise than
 * `canonicalJson` (an object that is not a plain one: a Date has toJSON) and a `__proto__` key (a list would read it
 * from the prototype of every object without its own) take `canonicalJson`.
 */
export function canonicalEventJson(event: { readonly type: string }): string {
  let list = keysByType.get(event.type);
  if (!list) keysByType.set(event.type, (list = { keys: new Set(), sorted: undefined }));
  if (list.keys.size > MAX_LISTED_KEYS || !listKeys(event, list)) return canonicalJson(event);
  list.sorted ??= [...list.keys].sort();
  return JSON.stringify(event, list.sorted);
}

/** Adds the keys of `value` at every depth to `list`; false when it holds what a list of properties cannot write. */
function listKeys(value: object, list: KeyList): boolean {
  if (Array.isArray(value)) {
    for (const item of value) if (!listable(item, list)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    if (key === '__proto__') return false;
    if (!list.keys.has(key)) {
      list.keys.add(key);
      list.sorted = undefined;
    }
    if (!listable((value as Record<string, unknown>)[key], list)) return false;
  }
  return true;
}

function listable(v: unknown, list: KeyList): boolean {
  if (v === null) return true;
  if (typeof v === 'object') return listKeys(v, list);
  // JSON.stringify leaves these out where `canonicalJson` writes them as it can.
  return typeof v !== 'function' && typeof v !== 'symbol';
}

/** Identity of an event's content: applying the same content twice is a no-op (import is idempotent). */
export function eventHash(canonical: string): string {
  return hash('sha1', canonical, 'base64url');
}
