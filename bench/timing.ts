/** Timing helpers: percentiles, a timed loop with warm-up, and a sequential keep-alive HTTP client. */
import { Agent, request } from 'node:http';

export interface Stats {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    mean: sorted.reduce((s, x) => s + x, 0) / (sorted.length || 1),
  };
}

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

const gc = (globalThis as { gc?: () => void }).gc;

/** Runs `fn` `warmup` times untimed, then `iterations` times timed, one after the other; returns ms figures. */
export async function measure(fn: () => Promise<unknown>, iterations: number, warmup: number): Promise<Stats> {
  for (let k = 0; k < warmup; k++) await fn();
  gc?.();
  const samples: number[] = [];
  for (let k = 0; k < iterations; k++) {
    const start = nowMs();
    await fn();
    samples.push(nowMs() - start);
  }
  return stats(samples);
}

/** One connection, reused: requests are sent one at a time, as a UI paging would. */
export class HttpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  /** `headers`: sent with every request (e.g. a bearer token). */
  constructor(private readonly port: number, private readonly host = '127.0.0.1', private readonly headers: Record<string, string> = {}) {}

  get(path: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: this.host, port: this.port, path, method: 'GET', agent: this.agent, headers: this.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** POST `body` with extra headers. */
  post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: this.host, port: this.port, path, method: 'POST', agent: this.agent, headers: { ...this.headers, ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** GET that must answer 200; returns the body. */
  async getOk(path: string): Promise<string> {
    const res = await this.get(path);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.body.slice(0, 200)}`);
    return res.body;
  }

  close(): void {
    this.agent.destroy();
  }
}

export const fmt = (ms: number, digits = 2): string => (Number.isFinite(ms) ? ms.toFixed(digits) : '—');
export const mb = (bytes: number): string => (bytes / 1048576).toFixed(0);

/** Wraps a chain port so that every call but the local ones (`sign`, `address`) adds its time to `spent.ms`. */
export function timed<T extends object>(target: T, spent: { ms: number }): T {
  const local = new Set(['sign', 'address']);
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (local.has(String(prop))) return fn.bind(t);
      return async (...args: unknown[]) => {
        const started = nowMs();
        try {
          return await fn.apply(t, args);
        } finally {
          spent.ms += nowMs() - started;
        }
      };
    },
  });
}
