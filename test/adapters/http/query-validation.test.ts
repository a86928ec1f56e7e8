/**
 * Query validation on every route (issue #13, item 1): query objects are built without a prototype, so that
 * `__proto__` is a parameter like any other (unknown, hence refused, and named as itself when repeated); every
 * route, the timeline included, refuses a parameter it does not declare.
 */
import { aRun, T0 } from '../../mothers/journal-events';
import { startTestServer, type TestServer } from '../../support/server';

const LISTS = ['/api/history/runs', '/api/history/txs', '/api/history/approvals', '/api/history/waiting',
  '/api/history/reorgs', '/api/history/replays', '/api/history/workflows', '/api/spend'];

describe('query parameters: __proto__ and unknown names', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    await srv.append(aRun({ runId: 'qv-1', at: T0 }));
  });
  afterAll(() => srv.close());

  it.each(LISTS)('%s refuses __proto__ as an unknown parameter', async (path) => {
    const res = await srv.get(`${path}?__proto__=x`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^__proto__: unknown parameter/);
  });

  it.each(LISTS)('%s names a repeated __proto__ as itself', async (path) => {
    const res = await srv.get(`${path}?__proto__=a&__proto__=b`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^__proto__: /);
  });

  it('a repeated known parameter is refused under its own name', async () => {
    const res = await srv.get('/api/history/runs?status=failed&status=succeeded');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('status: must be given once, as a single value');
  });

  it.each([
    '/api/history/runs/qv-1/timeline?x=1',
    '/api/history/runs/qv-1/timeline?__proto__=1',
    '/api/history/diff?a=qv-1&b=qv-1&c=1',
    '/api/history/export?format=csv&bogus=1',
    '/api/workflows?x=1',
    '/api/openapi.json?x=1',
    '/health?x=1',
    '/live?x=1',
  ])('GET %s is a 400 naming the unknown parameter', async (path) => {
    const res = await srv.get(path);
    expect(res.status).toBe(400);
    const name = new URL(path, 'http://x').search.split('&').pop()!.replace(/^\?/, '').split('=')[0];
    expect(res.body.error).toMatch(new RegExp(`^${name}: unknown parameter`));
  });

  it('the timeline without parameters still answers', async () => {
    const res = await srv.get('/api/history/runs/qv-1/timeline');
    expect(res.status).toBe(200);
    expect(res.body.run.run_id).toBe('qv-1');
  });

  it.each([
    ['{"decision":"maybe"}', /^decision: must be one of approve, reject, approved, rejected$/],
    ['{"decision":"approve","extra":1}', /^extra: unknown member$/],
    ['{"decision":"approve","reason":5}', /^reason: must be a string$/],
    ['{"reason":"x"}', /^decision: required$/],
    ['[1]', /^body: must be a JSON object$/],
    ['{"decision":"approve","__proto__":{"x":1}}', /^__proto__: unknown member$/],
  ])('POST /api/approvals/:id/decision with %s: 400 naming the member, before anything is looked up', async (body, error) => {
    const res = await fetch(`${srv.baseUrl}/api/approvals/some-approval/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(error);
  });

  it('a POST route refuses an unknown query parameter too', async () => {
    const res = await fetch(`${srv.baseUrl}/api/runs/qv-1/cancel?force=1`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^force: unknown parameter/);
  });
});
