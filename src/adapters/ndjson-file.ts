import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import type { InvalidLine, LineSource } from '../application/journal/import-journal.use-case';

const NEWLINE = 0x0a;
const CR = '\r';

/**
 * The lines of an NDJSON file, read as a stream (constant memory) as often as asked. Bytes are checked as UTF-8
 * before they become text: a line that is not valid UTF-8 comes back as an InvalidLine (the import refuses it,
 * naming the line), never as text with the bad bytes silently replaced. `chunkBytes`: how much is read at a time
 * (default 1 MiB, for the import's large files).
 */
export function ndjsonFile(path: string, options: { readonly chunkBytes?: number } = {}): LineSource {
  return { lines: () => readLines(path, options.chunkBytes ?? 1 << 20) };
}

/**
 * The number of lines of the file at `path` (a last line without a newline counts): the import's progress total, so
 * that a bar can be drawn while the file is read only once for the import itself. A scan of bytes, about 0.1 s for
 * 200 MB in the OS cache.
 */
export function countLines(path: string): number {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let lines = 0;
    let last = NEWLINE;
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; last = buffer[n - 1]!) {
      for (let i = buffer.indexOf(NEWLINE, 0); i >= 0 && i < n; i = buffer.indexOf(NEWLINE, i + 1)) lines++;
    }
    return last === NEWLINE ? lines : lines + 1;
  } finally {
    closeSync(fd);
  }
}

async function* readLines(path: string, chunkBytes: number): AsyncGenerator<string | InvalidLine> {
  let carry: Buffer | undefined;
  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>) {
    const bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
    // A newline byte never occurs inside a multi-byte character: cutting after the last one keeps characters whole.
    const end = bytes.lastIndexOf(NEWLINE);
    if (end < 0) {
      carry = bytes;
      continue;
    }
    yield* splitLines(bytes.subarray(0, end));
    carry = end + 1 < bytes.length ? bytes.subarray(end + 1) : undefined;
  }
  if (carry) yield* splitLines(carry);
}

/** Complete lines joined by newlines: one check for the whole block, per line only when it fails. */
function* splitLines(block: Buffer): Generator<string | InvalidLine> {
  if (isUtf8(block)) {
    for (const line of block.toString('utf8').split('\n')) yield line.endsWith(CR) ? line.slice(0, -1) : line;
    return;
  }
  let start = 0;
  for (;;) {
    const nl = block.indexOf(NEWLINE, start);
    const line = block.subarray(start, nl < 0 ? block.length : nl);
    if (isUtf8(line)) {
      const text = line.toString('utf8');
      yield text.endsWith(CR) ? text.slice(0, -1) : text;
    } else {
      yield { invalid: `not valid UTF-8 (byte ${firstInvalidByte(line) + 1} of the line)` };
    }
    if (nl < 0) return;
    start = nl + 1;
  }
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
function firstInvalidByte(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const size = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (size === 0 || i + size > bytes.length || !isUtf8(bytes.subarray(i, i + size))) return i;
    i += size;
  }
  return bytes.length;
}
