import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors';

/** The longest Idempotency-Key a caller may send (webhooks, manual runs), in characters. */
export const MAX_IDEMPOTENCY_KEY = 200;

const PRINTABLE = /^[\x20-\x7e]+$/;

/**
 * A caller's Idempotency-Key, trimmed: 1 to 200 printable ASCII characters (as an HTTP header can carry it), else
 * InvalidInputError naming `field` (`Idempotency-Key`, `--idempotency-key`). Undefined when none was given.
 */
export function parseIdempotencyKey(raw: string | undefined, field: string): string | undefined {
  if (raw === undefined) return undefined;
  const key = raw.trim();
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY || !PRINTABLE.test(key)) {
    throw new InvalidInputError(field, `must be 1 to ${MAX_IDEMPOTENCY_KEY} printable ASCII characters`);
  }
  return key;
}

/**
 * The delivery key that makes a manual run's Idempotency-Key start at most one run of `workflow` in `session`
 * (CONTRACT 8.7). The key is hashed: its length stays fixed within the store's key column whatever the workflow
 * name, and the caller's text is not kept.
 */
export function manualRunKey(workflow: string, session: 'live' | 'test', key: string): string {
  return `manual:${workflow}:${session}:key:${createHash('sha256').update(key).digest('hex')}`;
}
