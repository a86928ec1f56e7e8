import { prng } from '../../../src/application/journal/sample-journal';
import { bucketOf, coverRange, DAY_MS, GRAINS, HOUR_MS, type Cover, type Range } from '../../../src/adapters/knex/spend-cover';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const sizeOf = new Map(GRAINS.map((g) => [g.grain, g.size]));

/** Every range a cover reads: rollup ranges (of bucket starts, aligned: the instants they hold) and raw ranges. */
function all(cover: Cover): (Range & { grain: string })[] {
  return [...cover.buckets.map((b) => ({ ...b.range, grain: b.grain })), ...cover.raw.map((r) => ({ ...r, grain: 'raw' }))];
}

const contains = (r: Range, t: number): boolean => (r.from === undefined || t >= r.from) && (r.to === undefined || t < r.to);
const timesCovered = (cover: Cover, t: number): number => all(cover).filter((r) => contains(r, t)).length;

/**
 * The ranges of a cover tile [from, to) exactly: each is non-empty, and sorted by start they follow each
 * other without gap or overlap from `from` to `to` (undefined: unbounded). So every instant of [from, to)
 * lies in exactly one range, and no instant outside it in any.
 */
function expectExactTiling(cover: Cover, from: number | undefined, to: number | undefined): void {
  const ranges = all(cover).sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity));
  expect(ranges.length).toBeGreaterThan(0);
  for (const r of ranges) if (r.from !== undefined && r.to !== undefined) expect(r.from).toBeLessThan(r.to);
  expect(ranges[0]!.from).toBe(from);
  for (let i = 1; i < ranges.length; i++) {
    expect(ranges[i - 1]!.to).toBeDefined();
    expect(ranges[i]!.from).toBe(ranges[i - 1]!.to);
  }
  expect(ranges[ranges.length - 1]!.to).toBe(to);
}

/**
 * Rollup ranges are aligned to their grain; a finer grain only fills what is left of a coarser bucket at
 * either edge (less than two coarser buckets long), and the raw ranges less than two of the finest buckets.
 */
function expectAligned(cover: Cover): void {
  for (const { grain, range } of cover.buckets) {
    const size = sizeOf.get(grain);
    expect(size).toBeDefined();
    if (range.from !== undefined) expect(range.from % size!).toBe(0);
    if (range.to !== undefined) expect(range.to % size!).toBe(0);
    const coarser = GRAINS[GRAINS.findIndex((g) => g.grain === grain) - 1];
    if (coarser && range.from !== undefined && range.to !== undefined) {
      expect(range.to - range.from).toBeLessThan(2 * coarser.size);
    }
  }
  const finest = GRAINS[GRAINS.length - 1]!.size;
  for (const r of cover.raw) {
    expect(r.from).toBeDefined();
    expect(r.to).toBeDefined();
    expect(r.to! - r.from!).toBeLessThan(2 * finest);
  }
  for (const g of GRAINS) expect(cover.buckets.filter((b) => b.grain === g.grain).length).toBeLessThanOrEqual(2);
  expect(cover.raw.length).toBeLessThanOrEqual(2);
}

/** Instants worth probing: every range boundary and its neighbours, and random ones around the range. */
function probes(cover: Cover, from: number | undefined, to: number | undefined, rand: () => number): number[] {
  const out: number[] = [];
  for (const r of all(cover)) for (const t of [r.from, r.to]) if (t !== undefined) out.push(t - 1, t, t + 1);
  const lo = (from ?? (to ?? T0) - 200 * DAY_MS) - DAY_MS;
  const hi = (to ?? (from ?? T0) + 200 * DAY_MS) + DAY_MS;
  for (let i = 0; i < 50; i++) out.push(lo + Math.floor(rand() * (hi - lo)));
  return out;
}

describe('coverRange', () => {
  const rand = prng(7);
  const point = (): number => {
    // Random instants, often exactly on (or 1 ms off) a bucket boundary of some grain.
    const base = T0 + Math.floor(rand() * 200) * DAY_MS + Math.floor(rand() * 24) * HOUR_MS;
    switch (Math.floor(rand() * 6)) {
      case 0: return bucketOf(base, 32 * DAY_MS);
      case 1: return base - (base % DAY_MS);
      case 2: return base;
      case 3: return base + (rand() < 0.5 ? 1 : -1);
      default: return base + Math.floor(rand() * HOUR_MS);
    }
  };
  const span = (): number => [1, 2, 999, 60_000, HOUR_MS - 1, HOUR_MS, HOUR_MS + 1, 5 * HOUR_MS, DAY_MS - 1, DAY_MS, DAY_MS + 1, 3 * DAY_MS + 17, 32 * DAY_MS, 40 * DAY_MS][Math.floor(rand() * 14)]!
    + (rand() < 0.5 ? 0 : Math.floor(rand() * 100 * DAY_MS));

  it('covers every instant of random [from, to) exactly once, with aligned rollup ranges', () => {
    for (let i = 0; i < 1000; i++) {
      const from = point();
      const to = from + span();
      const cover = coverRange(from, to);
      expectExactTiling(cover, from, to);
      expectAligned(cover);
      for (const t of probes(cover, from, to, rand)) {
        const n = timesCovered(cover, t);
        if (n !== (t >= from && t < to ? 1 : 0)) throw new Error(`instant ${t} of [${from}, ${to}) covered ${n} times`);
      }
    }
  });

  it('covers every millisecond of short ranges across hour and day boundaries exactly once (brute force)', () => {
    for (let i = 0; i < 30; i++) {
      const edge = T0 + Math.floor(rand() * 10) * DAY_MS + (rand() < 0.5 ? 0 : HOUR_MS);
      const from = edge - Math.floor(rand() * 3000);
      const to = edge + Math.floor(rand() * 3000);
      const cover = coverRange(from, to);
      for (let t = from - 2; t < to + 2; t++) {
        const n = timesCovered(cover, t);
        if (n !== (t >= from && t < to ? 1 : 0)) throw new Error(`instant ${t} of [${from}, ${to}) covered ${n} times`);
      }
    }
  });

  it('reads whole days and hours where they fit, and the minutes at the edges from the entries', () => {
    const from = T0 + 3 * HOUR_MS + 5;
    const to = T0 + 2 * DAY_MS + 4 * HOUR_MS + 7;
    const cover = coverRange(from, to);
    expect(cover.buckets).toEqual(expect.arrayContaining([
      { grain: 'd', range: { from: T0 + DAY_MS, to: T0 + 2 * DAY_MS } },
      { grain: 'h', range: { from: T0 + 4 * HOUR_MS, to: T0 + DAY_MS } },
      { grain: 'h', range: { from: T0 + 2 * DAY_MS, to: T0 + 2 * DAY_MS + 4 * HOUR_MS } },
    ]));
    expect(cover.buckets).toHaveLength(3);
    expect(cover.raw).toEqual(expect.arrayContaining([{ from, to: T0 + 4 * HOUR_MS }, { from: T0 + 2 * DAY_MS + 4 * HOUR_MS, to }]));
    expect(cover.raw).toHaveLength(2);
    expect(coverRange(T0 + 5, T0 + 10)).toEqual({ buckets: [], raw: [{ from: T0 + 5, to: T0 + 10 }] });
  });

  it('handles unbounded ends', () => {
    for (let i = 0; i < 300; i++) {
      const t = point();
      for (const [from, to] of [[t, undefined], [undefined, t]] as [number | undefined, number | undefined][]) {
        const cover = coverRange(from, to);
        expectExactTiling(cover, from, to);
        expectAligned(cover);
        for (const p of probes(cover, from, to, rand)) {
          const n = timesCovered(cover, p);
          if (n !== ((from === undefined || p >= from) && (to === undefined || p < to) ? 1 : 0)) throw new Error(`instant ${p} of [${from}, ${to}) covered ${n} times`);
        }
      }
    }
    const everything = coverRange(undefined, undefined);
    expectExactTiling(everything, undefined, undefined);
    expect(everything.raw).toEqual([]);
    expect(everything.buckets).toHaveLength(1);
  });

  it('covers nothing for an empty or inverted range', () => {
    for (const [from, to] of [[T0, T0], [T0 + 1, T0], [T0 + DAY_MS, T0]]) {
      const cover = coverRange(from, to);
      expect(all(cover)).toEqual([]);
    }
  });
});
