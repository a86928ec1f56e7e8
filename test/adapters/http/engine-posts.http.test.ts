/**
 * The engine's POSTs as CONTRACT 8.4 says: an empty body needs no Content-Type, a body of another type is 415, a
 * body that does not parse is 400, and a request a browser marks as not same-origin is 403 (Go's
 * CrossOriginProtection rule), with auth on or off; `/hooks/*` is exempt. Real requests to an in-process server.
 */
import { signPayload } from '../../../src/domain/engine/webhook-signature';
import { eventually } from '../../support/process';
import { startTestServer, type TestServer } from '../../support/server';

const HOOK_SECRET = 'hook-secret-for-posts';
const API_TOKEN = 'api-token-for-posts-7c1d';
const REFUSED = { error: 'cross-origin request refused' };
const WORKFLOWS = {
  hold: { trigger: { kind: 'manual' }, steps: [{ id: 'wait', type: 'delay', duration: '1h' }] },
  hooked: { trigger: { kind: 'webhook', auth: { hmac: { secret: 'hook' } } }, steps: [{ id: 'wait', type: 'delay', duration: '1h' }] },
};

interface Answer { status: number; body: unknown }

async function post(srv: TestServer, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(`${srv.baseUrl}${path}`, { method: 'POST', ...(init.body !== undefined ? { body: init.body } : {}), headers: init.headers ?? {} });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON: kept as text */ }
  return { status: res.status, body };
}

const hostOf = (srv: TestServer): string => new URL(srv.baseUrl).host;

describe.each([
  ['auth off', {}, {}],
  ['auth on', { server: { auth: { token: { secret: 'api_token' } } } }, { authorization: `Bearer ${API_TOKEN}` }],
] as const)('engine POSTs (%s)', (_name, extra, auth) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      env: { HOOK_SECRET, API_TOKEN },
      config: { secrets: { hook: { env: 'HOOK_SECRET' }, api_token: { env: 'API_TOKEN' } }, ...extra, workflows: WORKFLOWS },
    });
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
  });

  const start = async (): Promise<string> => {
    const res = await post(srv, '/api/workflows/hold/runs', { headers: { ...auth } });
    expect(res.status).toBe(202);
    return (res.body as { run_id: string }).run_id;
  };

  /** Waits for the run to park, then cancels it: no run is mid-step when the server closes. */
  const parkThenCancel = async (runId: string): Promise<void> => {
    await eventually(async () => {
      const page = await fetch(`${srv.baseUrl}/api/history/runs?status=waiting`, { headers: { ...auth } }).then((r) => r.json()) as { items: { run_id: string }[] };
      return page.items.some((r) => r.run_id === runId) ? true : undefined;
    });
    expect(await post(srv, `/api/runs/${runId}/cancel`, { headers: { ...auth } })).toMatchObject({ status: 200 });
  };

  it('needs no Content-Type for an empty body: start, cancel, pause and resume as curl -X POST sends them', async () => {
    const runId = await start();
    expect(await post(srv, `/api/runs/${runId}/cancel`, { headers: { ...auth } })).toMatchObject({ status: 200, body: { run_id: runId } });
    expect(await post(srv, `/api/runs/${runId}/cancel`, { headers: { ...auth } })).toMatchObject({ status: 409 });
    expect(await post(srv, '/api/workflows/hold/pause', { headers: { ...auth } })).toEqual({ status: 200, body: { workflow: 'hold', paused: true } });
    expect(await post(srv, '/api/workflows/hold/resume', { headers: { ...auth } })).toEqual({ status: 200, body: { workflow: 'hold', paused: false } });
    expect(await post(srv, '/api/approvals/nope.step/decision', { headers: { ...auth } })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/decision/) } });
  });

  it('refuses a body of another type than JSON (415) and a JSON body that does not parse (400)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await post(srv, '/api/workflows/hold/runs', { body: '{"input":{}}', headers: { ...auth, 'content-type': type } });
      expect({ type, ...res }).toEqual({ type, status: 415, body: { error: expect.stringMatching(/^Content-Type: .*application\/json/) } });
    }
    expect(await post(srv, '/api/workflows/hold/runs', { body: '{"input":', headers: { ...auth, 'content-type': 'application/json' } }))
      .toEqual({ status: 400, body: { error: expect.stringMatching(/^body: /) } });
    const started = await post(srv, '/api/workflows/hold/runs', { body: '{"input":{"n":1}}', headers: { ...auth, 'content-type': 'application/json; charset=utf-8' } });
    expect(started).toMatchObject({ status: 202 });
    await parkThenCancel((started.body as { run_id: string }).run_id);
  });

  it('refuses what a browser marks as cross-site, whatever the token, and changes nothing', async () => {
    for (const site of ['cross-site', 'same-site']) {
      expect(await post(srv, '/api/workflows/hold/pause', { headers: { ...auth, 'sec-fetch-site': site } })).toEqual({ status: 403, body: REFUSED });
      expect(await post(srv, '/api/workflows/hold/pause', { headers: { 'sec-fetch-site': site } })).toEqual({ status: 403, body: REFUSED });
    }
    const ok = { 'content-type': 'application/json' };
    expect(await post(srv, '/api/workflows/hold/runs', { body: '{}', headers: { ...auth, ...ok, origin: 'https://evil.example' } })).toEqual({ status: 403, body: REFUSED });
    expect(await post(srv, '/api/workflows/hold/runs', { body: '{}', headers: { ...auth, ...ok, origin: 'null' } })).toEqual({ status: 403, body: REFUSED });
    expect(await post(srv, '/api/workflows/hold/runs', { body: '{}', headers: { ...auth, ...ok, origin: `http://${hostOf(srv)}.evil.example` } })).toEqual({ status: 403, body: REFUSED });
    const listed = await fetch(`${srv.baseUrl}/api/workflows`, { headers: { ...auth } }).then((r) => r.json()) as { items: { workflow: string; paused: boolean }[] };
    expect(listed.items.find((w) => w.workflow === 'hold')?.paused).toBe(false);
  });

  it('lets through what a browser marks as same-origin or user-initiated, and an Origin naming the Host', async () => {
    for (const site of ['same-origin', 'none']) {
      expect(await post(srv, '/api/workflows/hold/resume', { headers: { ...auth, 'sec-fetch-site': site, origin: 'https://ignored.example' } })).toMatchObject({ status: 200 });
    }
    expect(await post(srv, '/api/workflows/hold/resume', { headers: { ...auth, origin: `http://${hostOf(srv)}` } })).toMatchObject({ status: 200 });
    expect(await post(srv, '/api/workflows/hold/resume', { headers: { ...auth, origin: `http://${hostOf(srv).toUpperCase()}` } })).toMatchObject({ status: 200 });
  });

  it('compares the Origin with the host a proxy says the browser used (X-Forwarded-Host)', async () => {
    const proxied = { ...auth, 'x-forwarded-host': 'chainflow.example.org, 10.0.0.2' };
    expect(await post(srv, '/api/workflows/hold/resume', { headers: { ...proxied, origin: 'https://chainflow.example.org' } })).toMatchObject({ status: 200 });
    expect(await post(srv, '/api/workflows/hold/resume', { headers: { ...proxied, origin: `http://${hostOf(srv)}` } })).toEqual({ status: 403, body: REFUSED });
  });

  it('documents the 403 and the 415 on every engine POST in the OpenAPI document', async () => {
    const doc = await fetch(`${srv.baseUrl}/api/openapi.json`, { headers: { ...auth } }).then((r) => r.json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const posts = Object.entries(doc.paths).filter(([p, ops]) => p.startsWith('/api/') && ops.post).map(([p, ops]) => [p, Object.keys(ops.post!.responses)] as const);
    expect(posts.length).toBe(6);
    for (const [p, statuses] of posts) expect({ p, statuses }).toEqual({ p, statuses: expect.arrayContaining(['403', '415']) });
  });

  it('leaves /hooks/* to its signature: a cross-site sender is not refused 403', async () => {
    const raw = '{"amount":"1"}';
    const t = Math.floor(Date.now() / 1000);
    const res = await post(srv, '/hooks/hooked', {
      body: raw, headers: { 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site', origin: 'https://sender.example', 'x-chainflow-signature': `t=${t},v1=${signPayload(HOOK_SECRET, t, raw)}` },
    });
    expect(res).toMatchObject({ status: 202, body: { run_id: expect.any(String) } });
    await parkThenCancel((res.body as { run_id: string }).run_id);
  });
});
