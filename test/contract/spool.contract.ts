import type { Spools } from '../../src/application/ports/spool';

export interface SpoolsFixture {
  readonly spools: Spools;
  /** Whether the storage of every spool opened so far is freed. */
  allFreed(): Promise<boolean>;
  close(): Promise<void>;
}

const collect = async (records: AsyncIterable<string>): Promise<string[]> => {
  const out: string[] = [];
  for await (const r of records) out.push(r);
  return out;
};

/** What every Spools must do: the file adapter and the in-memory fake alike. */
export function spoolsContract(name: string, open: () => Promise<SpoolsFixture>): void {
  describe(`spools contract: ${name}`, () => {
    let fx: SpoolsFixture;
    beforeEach(async () => {
      fx = await open();
    });
    afterEach(async () => fx.close());

    it('gives back every record in the order appended, exactly (quotes, tabs, escapes, emoji, empty, multi-MB)', async () => {
      const spool = await fx.spools.open();
      const records = ['["r1",1,"ok"]', '', 'tab\there "quoted" \\n not a break', 'émoji 🚀 — ünïcode', 'x'.repeat(3 << 20), JSON.stringify({ a: 'line\nbreak' })];
      for (const r of records) await spool.append(r);
      expect(await collect(spool.records())).toEqual(records);
      expect(await collect(spool.records())).toEqual(records);
      await spool.discard();
    });

    it('keeps spools apart, and reads an unused one as empty', async () => {
      const a = await fx.spools.open();
      const b = await fx.spools.open();
      const c = await fx.spools.open();
      for (let i = 0; i < 2000; i++) {
        await a.append(`a${i}`);
        if (i % 2) await b.append(`b${i}`);
      }
      expect(await collect(a.records())).toEqual(Array.from({ length: 2000 }, (_, i) => `a${i}`));
      expect(await collect(b.records())).toEqual(Array.from({ length: 1000 }, (_, i) => `b${2 * i + 1}`));
      expect(await collect(c.records())).toEqual([]);
      await Promise.all([a.discard(), b.discard(), c.discard()]);
    });

    it('refuses a record with a line break, keeping the others', async () => {
      const spool = await fx.spools.open();
      await spool.append('one');
      await expect(spool.append('two\nthree')).rejects.toThrow('line break');
      await expect(spool.append('four\r')).rejects.toThrow('line break');
      expect(await collect(spool.records())).toEqual(['one']);
      await spool.discard();
    });

    it('frees its storage when discarded (twice is fine), and is unusable afterwards', async () => {
      const spool = await fx.spools.open();
      await spool.append('kept until discarded');
      await spool.discard();
      await spool.discard();
      expect(await fx.allFreed()).toBe(true);
      await expect(spool.append('late')).rejects.toThrow('discarded');
      await expect(collect(spool.records())).rejects.toThrow('discarded');
    });

    it('frees a spool discarded while its records are still being written', async () => {
      const spool = await fx.spools.open();
      const writes = Array.from({ length: 200 }, (_, i) => spool.append(`${i}`.repeat(10_000)));
      await spool.discard();
      await Promise.allSettled(writes);
      expect(await fx.allFreed()).toBe(true);
    });
  });
}
