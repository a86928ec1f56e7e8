import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Authenticate } from '../../application/auth/authenticate.use-case';
import { tokensOf } from './auth.middleware';
import { encodeBody } from './compression';

export interface MetricsListenerOptions {
  readonly registry: Registry;
  readonly port: number;
  /** Default 127.0.0.1: a scraper elsewhere needs it set, as `server.listen` for the server. */
  readonly host?: string;
  /** Checks the bearer when authentication is on, as `/metrics` of `chainflow start`; omitted: open. */
  readonly auth?: Authenticate;
  /** A failed scrape (a storage read that threw), already without secrets in what it is given. */
  readonly onError?: (err: unknown) => void;
}

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const json = (status: number, body: unknown): Answer => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(body) });

/**
 * A process without the API (`chainflow worker --metrics-port P`) serves its Prometheus page and nothing else:
 * `GET /metrics` (and HEAD), 404 for any other path, 405 for another method. No Express: one route needs no router.
 */
export function listenForMetrics(options: MetricsListenerOptions): Promise<Server> {
  const answer = async (req: IncomingMessage): Promise<Answer> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') return json(404, { error: 'not found' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return { ...json(405, { error: 'method not allowed' }), headers: { Allow: 'GET, HEAD' } };
    if (options.auth?.enabled) {
      const header = (name: string): string | undefined => {
        const value = req.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      if ((await options.auth.identify(tokensOf(header))) === null) {
        return { ...json(401, { error: 'unauthorized' }), headers: { 'WWW-Authenticate': 'Bearer' } };
      }
    }
    return { status: 200, type: options.registry.contentType, body: await options.registry.metrics() };
  };
  const server = createServer((req, res) => {
    answer(req).catch((err: unknown): Answer => {
      options.onError?.(err);
      return json(500, { error: 'internal error' });
    }).then((a) => {
      res.statusCode = a.status;
      res.setHeader('Content-Type', a.type);
      res.setHeader('Cache-Control', 'no-store');
      for (const [name, value] of Object.entries(a.headers ?? {})) res.setHeader(name, value);
      const body = req.method === 'HEAD' ? a.body : encodeBody(req, res, a.body);
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(req.method === 'HEAD' ? undefined : body);
    }, () => res.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
