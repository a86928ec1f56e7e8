/**
 * The NDJSON file the import reads (issue #13, item 3): lines come back as written, CRLF or LF, across read
 * chunks; a line that is not valid UTF-8 is reported as such (never silently "repaired" with U+FFFD).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countLines, ndjsonFile } from '../../../src/adapters/ndjson-file';
import { ImportJournal, ImportRejectedError } from '../../../src/application/journal/import-journal.use-case';
import { InMemoryJournal } from '../../fakes/in-memory-journal';
import { aRun } from '../../mothers/journal-events';
import { makeTempDir, removeTempDir } from '../../support/server';

let dir: string;
beforeAll(() => {
  dir = makeTempDir('chainflow-ndjson-');
});
afterAll(() => removeTempDir(dir));

async function linesOf(bytes: Buffer): Promise<unknown[]> {
  const file = path.join(dir, `f-${Math.random().toString(36).slice(2)}.ndjson`);
  fs.writeFileSync(file, bytes);
  const out: unknown[] = [];
  for await (const line of ndjsonFile(file).lines()) out.push(line);
  return out;
}

describe('ndjsonFile', () => {
  it('gives the lines as written (LF and CRLF, blank lines kept, no final empty line)', async () => {
    expect(await linesOf(Buffer.from('a\r\n\nb\nc\n', 'utf8'))).toEqual(['a', '', 'b', 'c']);
    expect(await linesOf(Buffer.from('a\nlast-without-newline', 'utf8'))).toEqual(['a', 'last-without-newline']);
  });

  it('counts the lines as they are read (the import bar\'s total), across read chunks of 1 MiB', async () => {
    const count = (text: string): number => {
      const file = path.join(dir, `c-${Math.random().toString(36).slice(2)}.ndjson`);
      fs.writeFileSync(file, text);
      return countLines(file);
    };
    for (const text of ['', 'a', 'a\n', 'a\r\n\nb\nc\n', 'a\nlast-without-newline', `${'x'.repeat((1 << 20) - 1)}\n${'y'.repeat(1 << 20)}\nz`]) {
      expect(count(text)).toBe((await linesOf(Buffer.from(text, 'utf8'))).length);
    }
  });

  it('keeps multi-byte characters whole across read chunks of 1 MiB', async () => {
    const long = `${'x'.repeat((1 << 20) - 1)}é€😀`;
    expect(await linesOf(Buffer.from(`${long}\nété\n`, 'utf8'))).toEqual([long, 'été']);
  });

  it('reports a line that is not valid UTF-8, with the offset of its first bad byte', async () => {
    const bytes = Buffer.concat([Buffer.from('ok\nab', 'utf8'), Buffer.from([0xc3, 0x28]), Buffer.from('\nfine\n', 'utf8')]);
    expect(await linesOf(bytes)).toEqual(['ok', { invalid: 'not valid UTF-8 (byte 3 of the line)' }, 'fine']);
  });

  it('an import of such a file is refused, naming the line, and imports nothing', async () => {
    const events = aRun({ runId: 'utf8-run' }).map((e) => JSON.stringify(e));
    const bad = Buffer.concat([Buffer.from(`${events[0]}\n{"type":"run.finished","at":"2026-03-01T12:00:00Z","run_id":"utf8-run","status":"failed","error":{"kind":"x","message":"caf`), Buffer.from([0xe9]), Buffer.from(`"}}\n`)]);
    const file = path.join(dir, 'bad-utf8.ndjson');
    fs.writeFileSync(file, bad);
    const journal = new InMemoryJournal();
    const error = await new ImportJournal(journal).execute(ndjsonFile(file)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRejectedError);
    expect((error as ImportRejectedError).problems).toEqual([{ line: 2, reason: expect.stringMatching(/^not valid UTF-8/) }]);
    expect(await journal.get('utf8-run')).toBeUndefined();
  });
});
