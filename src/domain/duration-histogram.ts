/**
 * Run durations of a workflow, kept as counts in logarithmic buckets (each 1% wider than the last), so
 * that the median and p95 of millions of runs are answered from a few hundred numbers, updated as runs
 * finish. Quantiles are exact to within 1% (the width of a bucket).
 */
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);

export class DurationHistogram {
  private constructor(private readonly counts: Map<number, number>) {}

  static empty(): DurationHistogram {
    return new DurationHistogram(new Map());
  }

  /** From the stored form: `{ "<bucket>": count }`. */
  static fromJson(text: string): DurationHistogram {
    const parsed = JSON.parse(text) as Record<string, number>;
    return new DurationHistogram(new Map(Object.entries(parsed).map(([k, v]) => [Number(k), v])));
  }

  toJson(): string {
    return JSON.stringify(Object.fromEntries(this.counts));
  }

  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** Both histograms' counts together (a new histogram). */
  plus(other: DurationHistogram): DurationHistogram {
    const counts = new Map(this.counts);
    for (const [bucket, n] of other.counts) counts.set(bucket, (counts.get(bucket) ?? 0) + n);
    return new DurationHistogram(counts);
  }

  /** Records one duration in milliseconds (negative durations count as 0). */
  add(ms: number): void {
    const bucket = ms < 1 ? 0 : Math.ceil(Math.log(ms) / LOG_GROWTH);
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + 1);
  }

  /** The q-quantile (0..1) in milliseconds, or null without data: the upper bound of its bucket, rounded. */
  quantile(q: number): number | null {
    const total = this.total;
    if (!total) return null;
    const rank = Math.max(1, Math.ceil(q * total));
    let seen = 0;
    for (const bucket of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(bucket)!;
      if (seen >= rank) return bucket === 0 ? 0 : Math.round(GROWTH ** bucket);
    }
    return null;
  }
}
