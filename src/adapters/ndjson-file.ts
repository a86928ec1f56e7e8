import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { LineSource } from '../application/journal/import-journal.use-case';

/** The lines of an NDJSON file, read as a stream (constant memory) as often as asked. */
export function ndjsonFile(path: string): LineSource {
  return {
    lines: () => createInterface({ input: createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }), crlfDelay: Infinity }),
  };
}
