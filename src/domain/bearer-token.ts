import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A named, revocable bearer as stored: never the token, only its SHA-256. */
export interface NamedBearer {
  readonly name: string;
  readonly tokenHash: string;
  readonly createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Names of bearers: the id rule (CONTRACT section 5). */
export const BEARER_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A new token: 32 random bytes, base64url, with a recognisable prefix (so that leaks can be spotted). */
export function newToken(): string {
  return `cf_${randomBytes(32).toString('base64url')}`;
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compares two secrets in constant time (of their hashes, so that lengths do not leak either). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
