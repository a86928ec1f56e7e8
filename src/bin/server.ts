import type { Server } from 'node:http';
import { createHttpApp } from '../adapters/http/app';
import { CheckHealth } from '../application/health/check-health.use-case';
import { GetRunTimeline } from '../application/history/get-run-timeline.use-case';
import { ListRuns } from '../application/history/list-runs.use-case';
import type { Root } from './root';

/** Writes one JSON log line to stderr. */
export function logLine(level: 'info' | 'warn' | 'error', msg: string, extra: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...extra })}\n`);
}

/** Starts the HTTP server on the configured address (or `port`); resolves once it listens. */
export async function startServer(root: Root, options: { port?: number; host?: string } = {}): Promise<Server> {
  const { container, config } = root;
  const app = createHttpApp({
    listRuns: container.get(ListRuns),
    getRunTimeline: container.get(GetRunTimeline),
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
