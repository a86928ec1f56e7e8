import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { constants, createBrotliCompress, createGzip, type BrotliCompress, type Gzip } from 'node:zlib';
import { MIN_COMPRESSED_BYTES, negotiateCoding, varyOnEncoding, type ContentCoding } from './compression';

/** The request path's cheap levels, as compressFast uses for pages (compression.ts says why). */
function compressor(coding: ContentCoding): Gzip | BrotliCompress {
  return coding === 'br'
    ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })
    : createGzip({ level: 3 });
}

/**
 * Where a streamed answer (the history export) is written: `res` itself when the client takes no coding; else a
 * stream that compresses into `res` once the answer reaches MIN_COMPRESSED_BYTES (a shorter one, known at its end,
 * goes as it is, like every small answer). Each write is flushed through the compressor (a sync flush: the client
 * can decode everything written so far), so a compressed export still streams chunk by chunk instead of arriving
 * when the compressor's window fills or the export ends. The writer already gathers its small writes into large
 * chunks, so a flush per write costs a few bytes per chunk, not the ratio.
 */
export function encodedStream(req: IncomingMessage, res: ServerResponse): Writable {
  const coding = res.hasHeader('Content-Encoding') ? undefined : negotiateCoding(req.headers['accept-encoding']);
  varyOnEncoding(res);
  if (!coding) return res;
  const flushKind = coding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  let held: Buffer[] = [];
  let heldBytes = 0;
  let zip: Gzip | BrotliCompress | undefined;
  /** Where bytes go once decided: the compressor, or `res` as it is. */
  let target: Writable | undefined;

  const decide = (compress: boolean): Writable => {
    if (!compress) return res;
    res.setHeader('Content-Encoding', coding);
    res.removeHeader('Content-Length');
    zip = compressor(coding);
    zip.on('error', (err) => res.destroy(err));
    zip.pipe(res);
    return zip;
  };
  const send = (chunk: Buffer, done: (err?: Error | null) => void): void => {
    if (zip) {
      zip.write(chunk);
      zip.flush(flushKind, () => done());
    } else if (res.write(chunk)) done();
    else res.once('drain', () => done());
  };

  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (target) return send(chunk, done);
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes < MIN_COMPRESSED_BYTES) return done();
      target = decide(true);
      const first = Buffer.concat(held);
      held = [];
      send(first, done);
    },
    final(done) {
      target ??= decide(false);
      if (held.length) target.write(Buffer.concat(held));
      held = [];
      let called = false;
      const finished = (): void => {
        if (!called) done();
        called = true;
      };
      res.once('finish', finished);
      res.once('close', finished);
      target.end();
    },
    destroy(err, done) {
      zip?.destroy();
      if (err) res.destroy(err);
      done(err);
    },
  });
  // The client going away is this stream's error too: the writer stops at its next write.
  res.once('close', () => {
    if (!res.writableFinished && !out.destroyed) out.destroy(new Error('the client closed the connection'));
  });
  return out;
}
