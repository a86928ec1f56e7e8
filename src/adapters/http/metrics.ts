import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { UNMATCHED } from './route-label';

/** Prometheus metrics of one server: requests and latency by route, and the journal's size. */
export class HttpMetrics {
  readonly registry = new Registry();
  /** Maps a request's path to its route's pattern; set by the app once every route is declared. */
  private routeOf: (path: string) => string = () => UNMATCHED;
  private readonly requests = new Counter({
    name: 'chainflow_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'chainflow_http_request_duration_seconds', help: 'HTTP request latency by route', labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [this.registry],
  });

  /**
   * `sizes`: row counts read at each scrape (journal tables); `ledger`: receipt reads still owed and failed
   * ones (ledger gaps: landed sends without a ledger entry).
   */
  constructor(
    sizes: () => Promise<Record<string, number>>,
    ledger: () => Promise<{ pending: number; gaps: number }> = async () => ({ pending: 0, gaps: 0 }),
    /** Registries of other adapters (the send path's counters), exported on the same page. */
    private readonly others: readonly Registry[] = [],
  ) {
    new Gauge({
      name: 'chainflow_spend_ledger_gaps', help: 'Landed sends whose receipt read failed: no ledger entry', registers: [this.registry],
      async collect() {
        this.set((await ledger()).gaps);
      },
    });
    new Gauge({
      name: 'chainflow_spend_receipts_pending', help: 'Landed sends whose ledger entry awaits a receipt read', registers: [this.registry],
      async collect() {
        this.set((await ledger()).pending);
      },
    });
    new Gauge({
      name: 'chainflow_journal_rows', help: 'Rows of the journal tables', labelNames: ['table'], registers: [this.registry],
      async collect() {
        for (const [table, n] of Object.entries(await sizes())) this.set({ table }, n);
      },
    });
  }

  /** Labels requests by the declared route whose path they are (see routeLabeler). */
  labelRoutes(routeOf: (path: string) => string): void {
    this.routeOf = routeOf;
  }

  /** Counts every request once it has been answered, labelled by its route's pattern (never the raw URL). */
  readonly middleware: RequestHandler = (req, res, next) => {
    const start = process.hrtime.bigint();
    // The path as it came: routers strip their mount point from req.path.
    const path = req.originalUrl.split('?')[0]!;
    res.once('finish', () => {
      const route = this.routeOf(path);
      this.requests.inc({ route, method: req.method, status: String(res.statusCode) });
      this.latency.observe({ route }, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };

  readonly handler: RequestHandler = async (_req, res) => {
    const registry = this.others.length ? Registry.merge([this.registry, ...this.others]) : this.registry;
    res.type(registry.contentType).send(await registry.metrics());
  };
}
