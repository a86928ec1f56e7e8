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

  constructor(private readonly out: Writable) {}

  async write(chunk: string): Promise<void> {
    this.buffer += chunk;
    if (this.buffer.length >= CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.buffer) return;
    const text = this.buffer;
    this.buffer = '';
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  /** Flushes and ends the stream; resolves when everything is written. */
  async end(): Promise<void> {
    await this.flush();
    this.out.end();
    if (!this.out.writableFinished) await once(this.out, 'finish');
  }
}
