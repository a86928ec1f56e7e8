import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { RequestHandler } from 'express';
import { MIN_COMPRESSED_BYTES, negotiateCoding, varyOnEncoding, type ContentCoding } from './compression';

/** One asset's compressed forms, made at the first request that asks for each and kept for the process's life. */
interface Entry {
  readonly file: string;
  readonly tag: string;
  readonly forms: Partial<Record<ContentCoding, Buffer>>;
}

/**
 * The page's static files compressed (CONTRACT 11), for clients that accept br or gzip; files under 1 KB, unknown
 * paths and clients that accept neither fall through to `express.static`. The files never change while the process
 * runs (their URL carries a hash of them all), so each is compressed once, at the highest levels (the cost is paid
 * once per file, not per request), and lazily, so a server that never serves the page pays nothing at start.
 */
export function compressedAssets(root: string, cacheControl: string): RequestHandler {
  const entries = new Map<string, Entry | null>();
  const base = normalize(root + sep);

  const entryFor = (urlPath: string): Entry | null => {
    const known = entries.get(urlPath);
    if (known !== undefined) return known;
    let entry: Entry | null = null;
    let file: string;
    try {
      file = normalize(join(root, decodeURIComponent(urlPath)));
    } catch {
      file = '';
    }
    if (file.startsWith(base) && existsSync(file) && statSync(file).isFile()) {
      const bytes = readFileSync(file);
      if (bytes.length >= MIN_COMPRESSED_BYTES) entry = { file, tag: createHash('sha256').update(bytes).digest('base64url').slice(0, 22), forms: {} };
    }
    // Only real paths are remembered: a client probing made-up names must not grow the map.
    if (entry) entries.set(urlPath, entry);
    return entry;
  };

  const formOf = (entry: Entry, coding: ContentCoding): Buffer => {
    const cached = entry.forms[coding];
    if (cached) return cached;
    const bytes = readFileSync(entry.file);
    const form = coding === 'br'
      ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
      : gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION });
    entry.forms[coding] = form;
    return form;
  };

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const entry = entryFor(req.path);
    if (!entry) return next();
    varyOnEncoding(res);
    // Brotli first here: its cost was paid once, and it makes the smallest files.
    const coding = negotiateCoding(req.headers['accept-encoding'], 'br');
    if (!coding) return next();
    const body = formOf(entry, coding);
    res.type(req.path.slice(req.path.lastIndexOf('.')));
    res.set({ 'Cache-Control': cacheControl, ETag: `"${entry.tag}-${coding}"`, 'Content-Encoding': coding, 'Content-Length': String(body.length) });
    if (req.fresh) {
      res.removeHeader('Content-Length');
      res.status(304).end();
      return;
    }
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
