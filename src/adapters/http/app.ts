import { join } from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import type { Authenticate } from '../../application/auth/authenticate.use-case';
import type { CheckHealth } from '../../application/health/check-health.use-case';
import type { GetSpend } from '../../application/spend/get-spend.use-case';
import type { ReceiveWebhook } from '../../application/engine/receive-webhook.use-case';
import { requireAuth } from './auth.middleware';
import { engineRoutes, type EngineUseCases } from './engine.routes';
import { hooksRoutes } from './hooks.routes';
import { apiNotFound, errorHandler } from './error-handler';
import { historyRoutes, type HistoryUseCases } from './history.routes';
import type { HttpMetrics } from './metrics';
import { pageRoutes } from './page';
import { securityHeaders } from './security-headers';

/** What the HTTP server needs; the composition root provides it. */
export interface HttpDependencies {
  readonly history: HistoryUseCases;
  readonly getSpend: GetSpend;
  /** The engine's routes (start, approve, cancel, pause) and webhook triggers. */
  readonly engine?: EngineUseCases & { readonly receiveWebhook: ReceiveWebhook };
  readonly checkHealth: CheckHealth;
  readonly authenticate: Authenticate;
  readonly metrics: HttpMetrics;
  /** `/live` and `/health` without a token. Default true. */
  readonly healthPublic: boolean;
  /** `/metrics` without a token. Default false. */
  readonly metricsPublic: boolean;
  /** One line per answered request (method, route, status, time); never headers. */
  readonly logRequest: (entry: { method: string; url: string; status: number; ms: number }) => void;
  /** Where errors that are not the caller's fault are logged (never to the response). */
  readonly log: (message: string, err: unknown) => void;
}

/** The folder of the embedded page: its shell and `assets/` (copied next to the compiled adapter by the build). */
export const UI_DIR = join(__dirname, 'ui');

/**
 * The HTTP server: the embedded page at `/` (public), the JSON API under `/api` (bearer auth when on),
 * the probes and `/metrics`. `/hooks/*` belongs to the engine's triggers and is never under the bearer.
 */
export function createHttpApp(deps: HttpDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const auth = requireAuth(deps.authenticate);
  const open: RequestHandler = (_req, _res, next) => next();

  app.use(securityHeaders());
  app.use(deps.metrics.middleware);
  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.once('finish', () => deps.logRequest({
      method: req.method, url: req.originalUrl.split('?')[0]!, status: res.statusCode, ms: Number(process.hrtime.bigint() - start) / 1e6,
    }));
    next();
  });

  app.get('/live', deps.healthPublic ? open : auth, (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health', deps.healthPublic ? open : auth, async (_req, res) => {
    const report = await deps.checkHealth.execute();
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  });
  app.get('/metrics', deps.metricsPublic ? open : auth, deps.metrics.handler);

  const api = express.Router();
  api.use(auth);
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  api.use('/history', historyRoutes(deps.history));
  api.get('/spend', async (req, res) => {
    res.json(await deps.getSpend.execute(req.query as Record<string, unknown>));
  });
  if (deps.engine) api.use(engineRoutes(deps.engine));
  api.use(apiNotFound);
  app.use('/api', api);

  // Inbound webhooks of workflow triggers: never under the bearer (each trigger checks its own HMAC); the
  // engine mounts its triggers here. Without one, the path answers as unknown.
  if (deps.engine) app.use('/hooks', hooksRoutes(deps.engine.receiveWebhook, deps.engine.poke));
  app.use('/hooks', (_req, res) => {
    res.status(404).json({ error: 'no such trigger' });
  });

  app.use(pageRoutes(UI_DIR));
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use(errorHandler(deps.log));
  return app;
}
