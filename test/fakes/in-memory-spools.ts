import type { Spool, Spools } from '../../src/application/ports/spool';

/** Spools held in memory; `open` counts them, `live` tells which are not discarded yet. */
export class InMemorySpools implements Spools {
  readonly opened: InMemorySpool[] = [];

  async open(): Promise<Spool> {
    const spool = new InMemorySpool();
    this.opened.push(spool);
    return spool;
  }

  get live(): number {
    return this.opened.filter((s) => !s.discarded).length;
  }
}

class InMemorySpool implements Spool {
  private readonly stored: string[] = [];
  discarded = false;

  async append(record: string): Promise<void> {
    if (this.discarded) throw new Error('the spool is discarded');
    if (/[\r\n]/.test(record)) throw new Error('a spool record holds a line break');
    this.stored.push(record);
  }

  async *records(): AsyncGenerator<string> {
    if (this.discarded) throw new Error('the spool is discarded');
    yield* [...this.stored];
  }

  async discard(): Promise<void> {
    this.discarded = true;
    this.stored.length = 0;
  }
}
