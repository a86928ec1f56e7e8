import type { Server } from 'node:http';
import type pino from 'pino';
import type { Registry } from 'prom-client';
import { processLog } from '../adapters/pino-logger';
import { createHttpApp } from '../adapters/http/app';
import { HttpMetrics } from '../adapters/http/metrics';
import { Authenticate } from '../application/auth/authenticate.use-case';
import { CheckHealth } from '../application/health/check-health.use-case';
import { JournalSizes } from '../application/health/journal-sizes.use-case';
import { DiffRuns } from '../application/history/diff-runs.use-case';
import { ExportHistory } from '../application/history/export-history.use-case';
import { GetRunTimeline } from '../application/history/get-run-timeline.use-case';
import { ListApprovals } from '../application/history/list-approvals.use-case';
import { ListReorgs } from '../application/history/list-reorgs.use-case';
import { ListReplays } from '../application/history/list-replays.use-case';
import { ListRuns } from '../application/history/list-runs.use-case';
import { ListSends } from '../application/history/list-sends.use-case';
import { ListWaiting } from '../application/history/list-waiting.use-case';
import { ListWorkflows } from '../application/history/list-workflows.use-case';
import { GetSpend } from '../application/spend/get-spend.use-case';
import { ReplayEvents } from '../application/engine/replay-events.use-case';
import { CancelRun } from '../application/engine/cancel-run.use-case';
import { DecideApproval } from '../application/engine/decide-approval.use-case';
import { Engine } from '../application/engine/engine';
import { ReceiveWebhook } from '../application/engine/receive-webhook.use-case';
import { ListConfiguredWorkflows, SetWorkflowPaused } from '../application/engine/workflow-controls.use-case';
import { PendingReceipts } from '../application/ports/spend-ledger';
import { CheckProviders } from '../application/relayers/check-providers.use-case';
import { ListRelayers } from '../application/relayers/list-relayers.use-case';
import { ListBudgets } from '../application/spend/list-budgets.use-case';
import { ListTopups } from '../application/relayers/list-topups.use-case';
import { ListNotifications } from '../application/notifications/list-notifications.use-case';
import { Redactor } from '../domain/redactor';
import { ENGINE_SECRET_PATHS, requireSecrets, serverSecretPaths } from '../application/secrets-needed';
import { registerEngineProcessMetrics } from './process-metrics';
import type { Root } from './root';

/** The server's JSON log (pino): processLog(), standard output; request lines carry method, path, status and time. */
export const createLogger = processLog;

export interface ServerOptions {
  readonly port?: number;
  readonly host?: string;
  readonly logger?: pino.Logger;
  /** Run the engine in this process too (`chainflow start`; `--no-engine`: false). Default true. */
  readonly engine?: boolean;
}

/**
 * Starts the HTTP server on the configured address (or `port`), and the engine's loop unless `engine` is false;
 * resolves once it listens. Closing the server stops the engine.
 */
export async function startServer(root: Root, options: ServerOptions = {}): Promise<Server> {
  const { container, config } = root;
  // The server's own settings (the API token, the webhooks' HMAC keys) and, with the engine, all it may use.
  requireSecrets(config, [...serverSecretPaths(config), ...(options.engine === false ? [] : ENGINE_SECRET_PATHS)], 'chainflow start');
  const logger = options.logger ?? createLogger();
  const redactor = container.get(Redactor);
  const sizes = container.get(JournalSizes);
  const pendingReceipts = container.get<PendingReceipts>(PendingReceipts);
  const engine = options.engine === false ? undefined : container.get(Engine);
  engine?.start();
  // Each provider's chain id, compared at start (a mismatch is logged by the chain adapter, naming the network and
  // the provider's number); sends do not wait for it: a provider's first use checks it too, sharing the request.
  const providers = container.get(CheckProviders);
  void providers.execute().catch(() => undefined);
  // This process's counters (engine, sends) are exported on the same page: HttpMetrics holds the list it is given.
  const counters: Registry[] = [];
  const metrics = new HttpMetrics(() => sizes.execute(), () => pendingReceipts.counts(), counters);
  counters.push(...registerEngineProcessMetrics(metrics.registry, container));
  const app = createHttpApp({
    history: {
      listRuns: container.get(ListRuns),
      getRunTimeline: container.get(GetRunTimeline),
      listSends: container.get(ListSends),
      listApprovals: container.get(ListApprovals),
      listWaiting: container.get(ListWaiting),
      listReorgs: container.get(ListReorgs),
      listReplays: container.get(ListReplays),
      listWorkflows: container.get(ListWorkflows),
      exportHistory: container.get(ExportHistory),
      diffRuns: container.get(DiffRuns),
    },
    getSpend: container.get(GetSpend),
    listBudgets: container.get(ListBudgets),
    relayers: { listRelayers: container.get(ListRelayers), listTopups: container.get(ListTopups) },
    listNotifications: container.get(ListNotifications),
    engine: {
      startRun: (request) => container.get(Engine).submit(request),
      decideApproval: container.get(DecideApproval),
      cancelRun: container.get(CancelRun),
      replay: container.get(ReplayEvents),
      setPaused: container.get(SetWorkflowPaused),
      listWorkflows: container.get(ListConfiguredWorkflows),
      receiveWebhook: container.get(ReceiveWebhook),
      poke: () => engine?.poke(),
    },
    checkHealth: container.get(CheckHealth),
    authenticate: container.get(Authenticate),
    metrics,
    healthPublic: config.server.healthPublic,
    metricsPublic: config.server.metricsPublic,
    logRequest: (entry) => logger.info({ ...entry, url: redactor.redactText(entry.url) }, 'request'),
    log: (msg, err) => logger.error({ err: redactor.redactText(oneLine(err)) }, msg),
  });
  const host = options.host ?? config.server.host;
  const port = options.port ?? config.server.port;
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('close', () => void engine?.stop());
    server.once('error', reject);
  });
}


/** An error as one short line: typed errors are one line already; anything else is cut to its first line. */
function oneLine(err: unknown): string {
  const line = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
