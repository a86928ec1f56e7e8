import type { DeclaredRoute } from './route-table';

/** The label of requests no declared route serves. */
export const UNMATCHED = 'unmatched';

/**
 * The metrics label of a request: the pattern of the declared route whose path it is (`/api/runs/:id/cancel`),
 * whatever the method or status, so that a route's 400s, 401s and 415s count under the same label as its 200s (an
 * error rate per route needs that). Express's own `req.route` is unset when a middleware answers before the route
 * runs, and its `baseUrl` is gone by the time an error handler answers. Files of the page count as `/assets/*`.
 */
export function routeLabeler(routes: readonly DeclaredRoute[]): (path: string) => string {
  // Literal segments before parameters: `/api/history/runs/export` is not `/api/history/runs/:id`.
  const patterns = [...new Set(routes.map((r) => r.path))]
    .map((path) => ({ path, params: (path.match(/:/g) ?? []).length, test: compile(path) }))
    .sort((a, b) => a.params - b.params);
  const exact = new Map(patterns.filter((p) => p.params === 0).map((p) => [p.path, p.path]));
  const withParams = patterns.filter((p) => p.params > 0);
  return (path) => {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const known = exact.get(trimmed);
    if (known) return known;
    for (const p of withParams) if (p.test.test(trimmed)) return p.path;
    if (trimmed.startsWith('/assets/')) return '/assets/*';
    return UNMATCHED;
  };
}

function compile(path: string): RegExp {
  const source = path.split('/').map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
  return new RegExp(`^${source}$`);
}
