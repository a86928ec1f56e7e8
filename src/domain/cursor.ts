import { createHmac, timingSafeEqual } from 'node:crypto';
import { isValidId } from './ids';

/** Longest cursor text accepted: a position cursor, and a text-key cursor (256 characters of up to 4 bytes). */
export const MAX_CURSOR = 512;
export const MAX_KEY_CURSOR = 1500;

/** A position in a newest-first list: the (created_at, id) pair of the last row of a page. */
export interface CursorPosition {
  readonly createdAt: number;
  readonly id: string;
}

/**
 * Opaque, signed page cursors. A cursor names the list it belongs to and is signed with this
 * installation's key, so that a malformed, tampered or foreign cursor is refused rather than misread.
 */
export class CursorCodec {
  constructor(private readonly key: string) {
    if (key.length < 16) throw new Error('cursor key too short');
  }

  encode(list: string, position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify([list, position.createdAt, position.id])).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  /** Returns the position, or undefined when the text is not a valid cursor of `list`. */
  decode(list: string, text: string): CursorPosition | undefined {
    const payload = this.verified(text, MAX_CURSOR);
    if (payload === undefined) return undefined;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
      const [l, createdAt, id] = parsed as [unknown, unknown, unknown];
      if (l !== list || !Number.isSafeInteger(createdAt) || !isValidId(id)) return undefined;
      return { createdAt: createdAt as number, id };
    } catch {
      return undefined;
    }
  }

  /** A cursor over a list keyed by text (workflow names): any string up to 256 characters. */
  encodeKey(list: string, key: string): string {
    const payload = Buffer.from(JSON.stringify([list, key])).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decodeKey(list: string, text: string): string | undefined {
    const payload = this.verified(text, MAX_KEY_CURSOR);
    if (payload === undefined) return undefined;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== list || typeof parsed[1] !== 'string' || parsed[1].length > 256) return undefined;
      return parsed[1];
    } catch {
      return undefined;
    }
  }

  /** The payload of a well-signed cursor, or undefined. */
  private verified(text: string, maxLength: number): string | undefined {
    const dot = text.indexOf('.');
    if (dot <= 0 || text.length > maxLength) return undefined;
    const payload = text.slice(0, dot);
    const mac = Buffer.from(text.slice(dot + 1));
    const expected = Buffer.from(this.sign(payload));
    return mac.length === expected.length && timingSafeEqual(mac, expected) ? payload : undefined;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}
