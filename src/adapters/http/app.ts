import { join } from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import type { Authenticate } from '../../application/auth/authenticate.use-case';
import type { CheckHealth } from '../../application/health/check-health.use-case';
import type { GetSpend } from '../../application/spend/get-spend.use-case';
import type { ListBudgets } from '../../application/spend/list-budgets.use-case';
import type { ReceiveWebhook } from '../../application/engine/receive-webhook.use-case';
import { requireAuth } from './auth.middleware';
import { compressSend } from './compression';
import { crossOriginProtection } from './cross-origin';
import { engineRoutes, type EngineUseCases } from './engine.routes';
import { hooksRoutes } from './hooks.routes';
import { SPEND_PARAMS } from '../../application/spend/get-spend.use-case';
import { BUDGET_ITEM, envelope, ERROR, HEALTH, LIVE, SPEND_REPORT } from './api-schemas';
import { apiNotFound, errorHandler } from './error-handler';
import { historyRoutes, type HistoryUseCases } from './history.routes';
import type { HttpMetrics } from './metrics';
import { relayersRoutes, type RelayersUseCases } from './relayers.routes';
import { notificationsRoutes } from './notifications.routes';
import type { ListNotifications } from '../../application/notifications/list-notifications.use-case';
import { openApiDocument } from './openapi';
import { pageRoutes } from './page';
import { routeLabeler } from './route-label';
import { RouteTable } from './route-table';
import { securityHeaders } from './security-headers';
import { sendJson } from './json-body';

/** What the HTTP server needs; the composition root provides it. */
export interface HttpDependencies {
  readonly history: HistoryUseCases;
  readonly getSpend: GetSpend;
  /** Each budget's caps with what is spent, reserved and left (`GET /api/budgets`). */
  readonly listBudgets?: ListBudgets;
  /** The relayers' address book and top-up trail. */
  readonly relayers?: RelayersUseCases;
  /** The notifications outbox's deliveries. */
  readonly listNotifications?: ListNotifications;
  /** The engine's routes (start, approve, cancel, pause) and webhook triggers. */
  readonly engine?: EngineUseCases & { readonly receiveWebhook: ReceiveWebhook };
  readonly checkHealth: CheckHealth;
  readonly authenticate: Authenticate;
  readonly metrics: HttpMetrics;
  /** `/live` and `/health` without a token. Default true. */
  readonly healthPublic: boolean;
  /** `/metrics` without a token. Default false. */
  readonly metricsPublic: boolean;
  /** One line per answered request (method, decoded path, status, time); never headers, never the query. */
  readonly logRequest: (entry: { method: string; url: string; status: number; ms: number }) => void;
  /** Where errors that are not the caller's fault are logged (never to the response). */
  readonly log: (message: string, err: unknown) => void;
}

/** The version of the API's shapes (SPEC, Versioning: stable shapes, one envelope). */
const API_VERSION = '1.0.0';

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
  app.use(compressSend());
  app.use(deps.metrics.middleware);
  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.once('finish', () => deps.logRequest({
      method: req.method, url: decodedPath(req.originalUrl), status: res.statusCode, ms: Number(process.hrtime.bigint() - start) / 1e6,
    }));
    next();
  });

  const routes = new RouteTable();
  const probes = routes.router('/');
  const probe = deps.healthPublic ? open : auth;
  probes.get('/live', {
    summary: 'Liveness: 200 while the process serves HTTP', tag: 'operations', security: 'probe',
    responses: { 200: { description: 'alive', schema: LIVE }, 400: { description: 'an unknown parameter', schema: ERROR } },
  }, probe, (_req, res) => {
    res.json({ status: 'ok' });
  });
  probes.get('/health', {
    summary: 'Health: which storage, and whether it answers (within 2 s)', tag: 'operations', security: 'probe',
    responses: { 200: { description: 'healthy', schema: HEALTH }, 503: { description: 'the database does not answer: take this process out of rotation', schema: HEALTH } },
  }, probe, async (_req, res) => {
    const report = await deps.checkHealth.execute();
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  });
  probes.get('/metrics', {
    summary: 'Prometheus metrics', tag: 'operations', security: 'metrics',
    responses: { 200: { description: 'the Prometheus text format', contentType: 'text/plain' } },
  }, deps.metricsPublic ? open : auth, deps.metrics.handler);
  app.use(probes.express);

  const api = express.Router();
  api.use(auth);
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  api.use('/history', historyRoutes(routes, deps.history));
  const spend = routes.router('/api');
  spend.get('/spend', {
    summary: 'Spend summary per workflow, relayer and network, plus totals and the newest ledger entries', tag: 'spend', security: 'api',
    query: SPEND_PARAMS,
    responses: { 200: { description: 'summary over the whole filtered ledger; `limit` pages `entries` only', schema: SPEND_REPORT }, 400: { description: 'a bad parameter', schema: ERROR } },
  }, async (req, res) => {
    sendJson(res, await deps.getSpend.execute(req.query as Record<string, unknown>));
  });
  const { listBudgets } = deps;
  if (listBudgets) {
    spend.get('/budgets', {
      summary: 'Budget headroom: each budget\'s window and caps, with what is spent, reserved by sends in flight, and left', tag: 'spend',
      security: 'api', query: listBudgets.params,
      responses: { 200: { description: 'every configured budget, by name (list envelope, one page)', schema: envelope(BUDGET_ITEM) }, 400: { description: 'a bad parameter', schema: ERROR } },
    }, async (req, res) => {
      sendJson(res, await listBudgets.execute(req.query as Record<string, unknown>));
    });
  }
  let document: unknown;
  spend.get('/openapi.json', {
    summary: 'This document: the API as OpenAPI 3.1', tag: 'operations', security: 'api',
    responses: { 200: { description: 'the OpenAPI document', schema: { type: 'object' } } },
  }, (_req, res) => {
    document ??= openApiDocument(routes.routes, {
      title: 'chainflow', version: API_VERSION,
      description: 'The history explorer, spend ledger and engine API of chainflow. Errors are `{ "error": "<name>: <reason>" }`.',
    });
    sendJson(res, document);
  });
  api.use(spend.express);
  if (deps.relayers) api.use(relayersRoutes(routes, deps.relayers));
  if (deps.listNotifications) api.use(notificationsRoutes(routes, deps.listNotifications));
  if (deps.engine) api.use(engineRoutes(routes, deps.engine));
  api.use(apiNotFound);
  // Before the bearer: a browser's cross-site command is refused whether or not it carries a token (CONTRACT 8.4).
  app.use('/api', crossOriginProtection(), api);

  // Inbound webhooks of workflow triggers: never under the bearer (each trigger checks its own HMAC); the
  // engine mounts its triggers here. Without one, the path answers as unknown.
  if (deps.engine) app.use('/hooks', hooksRoutes(routes, deps.engine.receiveWebhook));
  app.use('/hooks', (_req, res) => {
    res.status(404).json({ error: 'no such trigger' });
  });

  routes.staticPath('/', {
    summary: 'The embedded web UI: the page\'s HTML shell (public, secret-free; it asks for a token when auth is on)', tag: 'operations', security: 'public',
    responses: { 200: { description: 'the page', contentType: 'text/html' } },
  });
  app.use(pageRoutes(UI_DIR));
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  app.use(errorHandler(deps.log));
  deps.metrics.labelRoutes(routeLabeler(routes.routes));
  return app;
}

/**
 * The path of a request URL (never its query), percent-decoded until it no longer changes (at most 3 rounds), so
 * that redaction sees a secret however it was encoded. A malformed escape stops the decoding where it is.
 */
export function decodedPath(url: string): string {
  let path = url.split('?')[0]!;
  for (let round = 0; round < 3 && path.includes('%'); round++) {
    try {
      const next = decodeURIComponent(path);
      if (next === path) break;
      path = next;
    } catch {
      break;
    }
  }
  return path;
}
