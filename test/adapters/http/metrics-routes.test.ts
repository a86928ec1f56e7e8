/**
 * The HTTP series label `route` is the route's pattern whatever the status (CONTRACT 11): a route's 400s, 401s and
 * 415s count under the label of its 200s, so a per-route error rate can be computed; `unmatched` is kept for paths
 * no route serves.
 */
import { startTestServer, type TestServer } from '../../support/server';

const TOKEN = 'metrics-token-3f9a1c77';

describe('metrics: one route label per route pattern', () => {
  let srv: TestServer;
  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Response> =>
    fetch(`${srv.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const auth = { authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    srv = await startTestServer({
      config: {
        secrets: { api_token: { env: 'API_TOKEN' } },
        server: { auth: { token: { secret: 'api_token' } }, metrics_public: true },
        workflows: { sweep: { trigger: { kind: 'manual' }, steps: [{ id: 'wait', type: 'delay', duration: '1s' }] } },
      },
      env: { API_TOKEN: TOKEN },
    });
  });
  afterAll(() => srv?.close());

  /** `status -> count` of chainflow_http_requests_total for one route label. */
  const series = async (route: string): Promise<Record<string, number>> => {
    const text = await (await call('GET', '/metrics')).text();
    const out: Record<string, number> = {};
    for (const line of text.split('\n')) {
      if (!line.startsWith('chainflow_http_requests_total{')) continue;
      const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      if (labels.route === route) out[labels.status!] = (out[labels.status!] ?? 0) + Number(line.split(' ').at(-1));
    }
    return out;
  };

  it('counts a list route\'s 200, 400 and 401 under its pattern', async () => {
    expect((await call('GET', '/api/history/runs', auth)).status).toBe(200);
    expect((await call('GET', '/api/history/runs?bogus=1', auth)).status).toBe(400);
    expect((await call('GET', '/api/history/runs')).status).toBe(401);
    expect(await series('/api/history/runs')).toEqual({ 200: 1, 400: 1, 401: 1 });
  });

  it('labels a path with an id by its pattern, also when a middleware answers before the route (415)', async () => {
    expect((await call('GET', '/api/history/runs/run-0001/timeline', auth)).status).toBe(404);
    expect((await call('POST', '/api/runs/run-0001/cancel', { ...auth, 'content-type': 'text/plain' }, 'x')).status).toBe(415);
    expect(await series('/api/history/runs/:id/timeline')).toEqual({ 404: 1 });
    expect(await series('/api/runs/:id/cancel')).toEqual({ 415: 1 });
  });

  it('keeps `unmatched` for paths no route serves, and never a raw path as a label', async () => {
    expect((await call('GET', '/api/no-such-thing', auth)).status).toBe(404);
    expect((await call('GET', '/definitely/not/here')).status).toBe(404);
    expect((await series('unmatched'))[404]).toBe(2);
    const text = await (await call('GET', '/metrics')).text();
    expect(text).not.toContain('run-0001');
    expect(text).not.toContain('no-such-thing');
  });
});
