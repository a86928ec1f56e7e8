import { join } from 'node:path';
import express, { type Express } from 'express';
import type { CheckHealth } from '../../application/health/check-health.use-case';
import { apiNotFound, errorHandler } from './error-handler';
import { historyRoutes, type HistoryUseCases } from './history.routes';

export interface HttpDependencies {
  readonly history: HistoryUseCases;
  readonly checkHealth: CheckHealth;
  /** Where errors that are not the caller's fault are logged (never to the response). */
  readonly log: (message: string, err: unknown) => void;
}

/** The folder of the embedded page (copied next to the compiled adapter by the build). */
export const UI_DIR = join(__dirname, 'ui');

/** The HTTP server: the embedded page at `/`, the JSON API under `/api`, and the probes. */
export function createHttpApp(deps: HttpDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health', async (_req, res) => {
    const report = await deps.checkHealth.execute();
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  });

  const api = express.Router();
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  api.use('/history', historyRoutes(deps.history));
  api.use(apiNotFound);
  app.use('/api', api);

  app.use(express.static(UI_DIR, { index: 'index.html', fallthrough: true }));
  app.use(errorHandler(deps.log));
  return app;
}
