import { createHmac, timingSafeEqual } from 'node:crypto';
import { isValidId } from './ids';

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
    const dot = text.indexOf('.');
    if (dot <= 0 || text.length > 512) return undefined;
    const payload = text.slice(0, dot);
    const mac = Buffer.from(text.slice(dot + 1));
    const expected = Buffer.from(this.sign(payload));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return undefined;
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

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}
