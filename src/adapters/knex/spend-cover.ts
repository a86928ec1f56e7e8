/**
 * How a time range [from, to) is read from the ledger's rollups. Rollups are kept at several grains, each
 * a fixed-size UTC bucket (32 days, a day, an hour); all time is every 32-day bucket. A range takes whole buckets
 * from the coarsest grain that fits, then the finer grains at either edge, and the minutes left at the very
 * edges from the entries themselves: a bounded number of rollup rows per (workflow, relayer, network),
 * whatever the ledger's size.
 */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** Grains, coarsest first: name (stored in the rollups' `grain` column) and bucket size. */
export const GRAINS: readonly { readonly grain: string; readonly size: number }[] = [
  { grain: 'm', size: 32 * DAY_MS },
  { grain: 'd', size: DAY_MS },
  { grain: 'h', size: HOUR_MS },
];

export interface Range {
  /** Inclusive lower bound; undefined: unbounded. */
  readonly from?: number;
  /** Exclusive upper bound; undefined: unbounded. */
  readonly to?: number;
}

export interface Cover {
  /** Rollup reads: a grain and the range of bucket starts it covers. */
  readonly buckets: { readonly grain: string; readonly range: Range }[];
  /** Entry reads at the edges. */
  readonly raw: Range[];
}

export function bucketOf(t: number, size: number): number {
  return Math.floor(t / size) * size;
}

function split(from: number | undefined, to: number | undefined, level: number, cover: Cover): void {
  if (from !== undefined && to !== undefined && from >= to) return;
  const g = GRAINS[level];
  if (!g) {
    cover.raw.push({ from, to });
    return;
  }
  const start = from === undefined ? undefined : Math.ceil(from / g.size) * g.size;
  const end = to === undefined ? undefined : Math.floor(to / g.size) * g.size;
  if (start !== undefined && end !== undefined && start >= end) {
    split(from, to, level + 1, cover);
    return;
  }
  if (from !== undefined && start! > from) split(from, start, level + 1, cover);
  cover.buckets.push({ grain: g.grain, range: { from: start, to: end } });
  if (to !== undefined && end! < to) split(end, to, level + 1, cover);
}

export function coverRange(from: number | undefined, to: number | undefined): Cover {
  const cover: Cover = { buckets: [], raw: [] };
  split(from, to, 0, cover);
  return cover;
}
