import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { TextSink } from '../application/ports/text-sink';

/** Bytes gathered before a write: an export makes many small writes. */
const CHUNK = 64 * 1024;

/**
 * A TextSink over a Node stream (file, HTTP response): small writes are gathered, and a full stream is
 * waited for (back-pressure), so that an export of any size keeps memory constant.
 */
export class StreamSink implements TextSink {
  private buffer = '';
  /** The stream's error (a full disk, a closed pipe): kept, then thrown by the next write, never left unhandled. */
  private failed: Error | undefined;

  constructor(private readonly out: Writable) {
    out.on('error', (err: Error) => {
      this.failed ??= err;
    });
  }

  async write(chunk: string): Promise<void> {
    if (this.failed) throw this.failed;
    this.buffer += chunk;
    if (this.buffer.length >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.buffer) return;
    const text = this.buffer;
    this.buffer = '';
    if (!this.out.write(text)) await once(this.out, 'drain');
    if (this.failed) throw this.failed;
  }

  /** Flushes and ends the stream; resolves when everything is written. */
  async end(): Promise<void> {
    await this.flush();
    this.out.end();
    if (!this.out.writableFinished) await once(this.out, 'finish');
    if (this.failed) throw this.failed;
  }
}
