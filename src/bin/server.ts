import type { Server } from 'node:http';
import { createHttpApp } from '../adapters/http/app';
import { CheckHealth } from '../application/health/check-health.use-case';
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
import type { Root } from './root';

/** Writes one JSON log line to stderr. */
export function logLine(level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...extra })}\n`);
}

/** Starts the HTTP server on the configured address (or `port`); resolves once it listens. */
export async function startServer(root: Root, options: { port?: number; host?: string } = {}): Promise<Server> {
  const { container, config } = root;
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
    checkHealth: container.get(CheckHealth),
    log: (msg, err) => logLine('error', msg, { err: err instanceof Error ? err.message : String(err) }),
  });
  const host = options.host ?? config.server.host;
  const port = options.port ?? config.server.port;
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}
