import type { Response } from 'express';
import { encodeBody } from './compression';

/**
 * Answers `value` as JSON (200 unless a status was set), as `res.json` does, in one write: Express's `res.json`
 * copies the text into a Buffer and sends it after the head in a second one (`writev`). Node's HTTP layer writes a
 * string body with the head as one piece (and no body for HEAD). For the history lists, whose pages are 20 – 30 KB
 * of JSON, this is the part of a page's cost the HTTP adapter owns (see docs/benchmarks.md).
 */
export function sendJson(res: Response, value: unknown): void {
  sendJsonText(res, JSON.stringify(value) ?? 'null');
}

/**
 * Answers `body`, JSON text already, as sendJson answers a value: compressed when the client accepts it and the body
 * is 1 KB or more (CONTRACT 11), else the text as it is, still in one write.
 */
export function sendJsonText(res: Response, body: string): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  const encoded = res.req.method === 'HEAD' ? body : encodeBody(res.req, res, body);
  res.setHeader('Content-Length', typeof encoded === 'string' ? Buffer.byteLength(encoded) : encoded.length);
  res.end(encoded);
}
