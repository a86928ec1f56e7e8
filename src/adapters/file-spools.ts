import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Spool, Spools } from '../application/ports/spool';
import { ndjsonFile } from './ndjson-file';

/**
 * Bytes buffered before a write waits, and read at a time. Small on purpose: the JSON export reads its spools while
 * it works near its memory target, and 1 MiB reads (the import's) made its peak RSS grow by about 15 MB at 1M runs.
 */
const CHUNK_BYTES = 64 * 1024;

/** Spools as files in a folder of their own under the system's temporary folder, one record a line. */
export class FileSpools implements Spools {
  constructor(private readonly parent: string = tmpdir()) {}

  async open(): Promise<Spool> {
    const dir = await mkdtemp(join(this.parent, 'chainflow-spool-'));
    return new FileSpool(dir);
  }
}

class FileSpool implements Spool {
  private readonly path: string;
  private out: WriteStream | undefined;
  /** The stream's error (a full disk): kept, then thrown by the next call, never left unhandled. */
  private failed: Error | undefined;
  private discarded = false;
  private draining: Promise<void> | undefined;

  constructor(private readonly dir: string) {
    this.path = join(dir, 'records');
  }

  async append(record: string): Promise<void> {
    if (this.discarded) throw new Error('the spool is discarded');
    if (/[\r\n]/.test(record)) throw new Error('a spool record holds a line break');
    const out = (this.out ??= this.openStream());
    if (this.failed) throw this.failed;
    if (!out.write(`${record}\n`)) {
      // Appends that find the stream full share one wait (one listener each for drain and close, however many).
      await (this.draining ??= drained(out).finally(() => {
        this.draining = undefined;
      }));
    }
    if (this.failed) throw this.failed;
  }

  async *records(): AsyncGenerator<string> {
    if (this.discarded) throw new Error('the spool is discarded');
    const out = this.out;
    if (!out) return;
    if (!out.writableFinished) {
      out.end();
      await once(out, 'finish');
    }
    if (this.failed) throw this.failed;
    for await (const line of ndjsonFile(this.path, { chunkBytes: CHUNK_BYTES }).lines()) {
      if (typeof line !== 'string') throw new Error(`spool ${this.path}: ${line.invalid}`);
      yield line;
    }
  }

  async discard(): Promise<void> {
    this.discarded = true;
    const out = this.out;
    if (out && !out.closed) {
      out.destroy();
      await once(out, 'close');
    }
    await rm(this.dir, { recursive: true, force: true });
  }

  private openStream(): WriteStream {
    const out = createWriteStream(this.path, { highWaterMark: CHUNK_BYTES });
    out.on('error', (err: Error) => {
      this.failed ??= err;
    });
    return out;
  }
}

/** Resolves when `out` can take more, or is closed (failed or discarded: the caller then finds out why). */
function drained(out: WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done).off('close', done);
      resolve();
    };
    out.on('drain', done).on('close', done);
  });
}
