import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

/** Bodies below this many bytes go as they are: the framing and the CPU would cost more than the bytes saved. */
export const MIN_COMPRESSED_BYTES = 1024;

/** The encodings this server writes. */
export type ContentCoding = 'br' | 'gzip';

/**
 * A page is compressed on the request path, synchronously, so its levels are the cheap end: gzip level 3 shrinks a
 * runs page to about a sixth for a fraction of a millisecond, and is what a client that takes both gets; brotli at
 * quality 4 saves a further tenth of those bytes for two to three times gzip's CPU, so it is kept for clients that
 * take only brotli. Assets are compressed once at the highest levels instead (compressed-assets.ts).
 */
const BROTLI_FAST = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
const GZIP_FAST = { level: 3 };

/**
 * The coding to answer with, from `Accept-Encoding` (RFC 9110 12.5.3): `br` or `gzip` (`x-gzip` and `*` too) with a
 * q-value above 0; the higher q wins, `prefer` on a tie. Undefined: send the identity.
 */
export function negotiateCoding(acceptEncoding: string | string[] | undefined, prefer: ContentCoding = 'gzip'): ContentCoding | undefined {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  if (!header) return undefined;
  const q: Partial<Record<ContentCoding | '*', number>> = {};
  for (const part of header.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (coding !== 'br' && coding !== 'gzip' && coding !== '*') continue;
    let value = 1;
    for (const param of params) {
      const [key, v] = param.split('=').map((s) => s.trim());
      if (key?.toLowerCase() === 'q') value = Number(v);
    }
    q[coding] = Number.isFinite(value) ? value : 0;
  }
  const br = q.br ?? q['*'] ?? 0;
  const gzip = q.gzip ?? q['*'] ?? 0;
  if (br <= 0 && gzip <= 0) return undefined;
  if (br === gzip) return prefer;
  return br > gzip ? 'br' : 'gzip';
}

/** `body` compressed with `coding` at the request path's cheap levels. */
export function compressFast(body: string | Buffer, coding: ContentCoding): Buffer {
  return coding === 'br' ? brotliCompressSync(body, BROTLI_FAST) : gzipSync(body, GZIP_FAST);
}

/** Appends `Accept-Encoding` to `Vary` (once): a cache must not serve one client's coding to another. */
export function varyOnEncoding(res: ServerResponse): void {
  const vary = res.getHeader('Vary');
  const current = Array.isArray(vary) ? vary.join(', ') : vary === undefined ? '' : String(vary);
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(current)) return;
  res.setHeader('Vary', current ? `${current}, Accept-Encoding` : 'Accept-Encoding');
}

/**
 * The body to write for `req`: compressed (with `Content-Encoding` and `Vary` set) when it is at least
 * MIN_COMPRESSED_BYTES, the client accepts a coding and nothing set an encoding already; else `body` itself.
 */
export function encodeBody(req: IncomingMessage, res: ServerResponse, body: string | Buffer): string | Buffer {
  const size = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (size < MIN_COMPRESSED_BYTES || res.hasHeader('Content-Encoding')) return body;
  varyOnEncoding(res);
  const coding = negotiateCoding(req.headers['accept-encoding']);
  if (!coding) return body;
  res.setHeader('Content-Encoding', coding);
  return compressFast(body, coding);
}

/**
 * Compresses what Express's `res.send` writes (`res.json` goes through it): error answers, the engine's replies,
 * `/metrics`. The history pages skip it (sendJsonText encodes them itself), as do streams (the export is written
 * chunk by chunk through encodedStream, compressed-stream.ts).
 */
export function compressSend(): RequestHandler {
  return (req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      if ((typeof body === 'string' || Buffer.isBuffer(body)) && req.method !== 'HEAD' && res.statusCode !== 204 && res.statusCode !== 304) {
        const encoded = encodeBody(req, res, body);
        if (encoded !== body) {
          // What `send` would have done for the text: HTML unless typed, always with its charset.
          if (typeof body === 'string') {
            const type = res.hasHeader('Content-Type') ? String(res.getHeader('Content-Type')) : 'text/html';
            res.setHeader('Content-Type', /charset=/i.test(type) ? type : `${type}; charset=utf-8`);
          }
          return send(encoded);
        }
      }
      return send(body);
    };
    next();
  };
}
