/**
 * Authentication through the real HTTP server on a real SQLite file (SPEC: Authentication 1-11, Other routes
 * named; CONTRACT section 5); the routes under the bearer, with named bearers minted and revoked in the store, on
 * PostgreSQL too. Every route the Express app registers under /api is found by walking its router,
 * so a route added later is covered without editing this file.
 */
import type { Express } from 'express';
import { ListBearers, MintBearer, RevokeBearer } from '../../../src/application/auth/manage-bearers.use-case';
import { tokenHash } from '../../../src/domain/bearer-token';
import { aRun, T0 } from '../../mothers/journal-events';
import { assertBuilt, chainflow, hasStackTrace, lines } from '../../support/cli';
import { get, startTestServer, type TestResponse, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';

const TOKEN = 'cfg-api-token-7f3a9c2e51d84b06';
const AUTH_CONFIG = { server: { auth: { token: { env: 'API_TOKEN' } } } };
const UNAUTHORIZED = '{"error":"unauthorized"}';

/** Every token any server of this file ever knew: no response may carry one. */
const secrets = new Set<string>([TOKEN]);

/** A request with optional credentials; every response is checked for leaked tokens and stack traces. */
async function call(srv: TestServer, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<TestResponse> {
  const res = method === 'GET'
    ? await get(`${srv.baseUrl}${path}`, { headers })
    : await (async () => {
      const r = await fetch(`${srv.baseUrl}${path}`, { method, headers });
      const text = await r.text();
      return { status: r.status, headers: r.headers, text, body: undefined };
    })();
  const headerText = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
  for (const secret of secrets) {
    expect({ path, leaks: res.text.includes(secret) || headerText.includes(secret) }).toEqual({ path, leaks: false });
  }
  expect({ path, stack: hasStackTrace(res.text) }).toEqual({ path, stack: false });
  return res;
}

function expectUnauthorized(res: TestResponse, what: string): void {
  expect({ what, status: res.status, body: res.text, challenge: res.headers.get('www-authenticate') })
    .toEqual({ what, status: 401, body: UNAUTHORIZED, challenge: 'Bearer' });
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
}

const bearer = (t: string): Record<string, string> => ({ Authorization: `Bearer ${t}` });
const service = (t: string): Record<string, string> => ({ 'X-Service-Token': t });

interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

/** Express 5: the routes under `app.router`, mounted routers included, as (METHOD, full path). */
function registeredRoutes(app: Express): RouteEntry[] {
  const out: RouteEntry[] = [];
  type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> }; rawPath?: unknown; handle?: { stack?: Layer[] } };
  const join = (prefix: string, p: string): string => (p === '/' ? prefix || '/' : `${prefix}${p}`);
  const walk = (stack: Layer[], prefix: string): void => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const p of paths) {
          for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') out.push({ method: m.toUpperCase(), path: join(prefix, p) });
          if (layer.route.methods._all) out.push({ method: 'GET', path: join(prefix, p) });
        }
      } else if (layer.handle?.stack) {
        if (typeof layer.rawPath !== 'string') throw new Error(`a router mounted on a non-string path (${String(layer.rawPath)}): extend this walker`);
        walk(layer.handle.stack, layer.rawPath === '/' ? prefix : `${prefix}${layer.rawPath}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out;
}

/** The Express app behind a running server (app.listen registers it as the request listener). */
function appOf(srv: TestServer): Express {
  const listener = srv.server.listeners('request')[0] as (Express & { router?: unknown }) | undefined;
  if (typeof listener !== 'function' || !listener.router) throw new Error('the request listener is not an Express app');
  return listener;
}

const RUN_A = 'auth-run-a';
const RUN_B = 'auth-run-b';
/** Query strings that make a known route answer 200; routes not listed must still pass the auth checks. */
const QUERY: Record<string, string> = {
  '/api/history/diff': `?a=${RUN_A}&b=${RUN_B}`,
  '/api/history/export': '?format=json',
};
const concrete = (r: RouteEntry): string => `${r.path.replace(/:id\b/g, RUN_A)}${QUERY[r.path] ?? ''}`;

describe.each(E2E_STORAGES)('authentication on (server.auth.token set): every /api route, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  let apiRoutes: RouteEntry[];
  let minted: string;
  let revoked: string;

  beforeAll(async () => {
    srv = await startTestServer({ storage: await freshStorage(), config: AUTH_CONFIG, env: { API_TOKEN: TOKEN } });
    await srv.append([...aRun({ runId: RUN_A, at: T0 }), ...aRun({ runId: RUN_B, at: T0 + 60_000 })]);
    minted = (await srv.root.container.get(MintBearer).execute('http-live')).token;
    revoked = (await srv.root.container.get(MintBearer).execute('http-revoked')).token;
    secrets.add(minted).add(revoked);
    // The revoked one worked before its revocation.
    expect((await call(srv, '/api/history/runs', bearer(revoked))).status).toBe(200);
    await srv.root.container.get(RevokeBearer).execute('http-revoked');
    apiRoutes = registeredRoutes(appOf(srv)).filter((r) => r.path === '/api' || r.path.startsWith('/api/'));
  });
  afterAll(() => srv.close());

  it('finds the routes by walking the Express router (the SPEC history routes are among them)', () => {
    const all = registeredRoutes(appOf(srv)).map((r) => `${r.method} ${r.path}`);
    for (const expected of ['GET /live', 'GET /health', 'GET /metrics', 'GET /api/history/runs', 'GET /api/history/runs/:id/timeline',
      'GET /api/history/txs', 'GET /api/history/approvals', 'GET /api/history/waiting', 'GET /api/history/reorgs',
      'GET /api/history/replays', 'GET /api/history/workflows', 'GET /api/history/export']) {
      expect(all).toContain(expected);
    }
    expect(apiRoutes.length).toBeGreaterThanOrEqual(10);
  });

  it('refuses every /api route without a token: 401, {"error":"unauthorized"}, WWW-Authenticate: Bearer', async () => {
    for (const r of apiRoutes) expectUnauthorized(await call(srv, concrete(r), {}, r.method), `${r.method} ${r.path} without a token`);
  });

  it('refuses every /api route with a wrong token, in either header or both', async () => {
    for (const r of apiRoutes) {
      const path = concrete(r);
      expectUnauthorized(await call(srv, path, bearer('wrong-token'), r.method), `${path} wrong Authorization`);
      expectUnauthorized(await call(srv, path, service('wrong-token'), r.method), `${path} wrong X-Service-Token`);
      expectUnauthorized(await call(srv, path, { ...bearer('wrong-1'), ...service('wrong-2') }, r.method), `${path} both wrong`);
    }
  });

  it('refuses every /api route with a revoked bearer, in either header', async () => {
    for (const r of apiRoutes) {
      const path = concrete(r);
      expectUnauthorized(await call(srv, path, bearer(revoked), r.method), `${path} revoked via Authorization`);
      expectUnauthorized(await call(srv, path, service(revoked), r.method), `${path} revoked via X-Service-Token`);
    }
  });

  it('accepts the config token and a minted bearer on every /api route, through Authorization: Bearer and X-Service-Token', async () => {
    for (const r of apiRoutes) {
      const path = concrete(r);
      for (const [label, headers] of [
        ['config token, Authorization', bearer(TOKEN)], ['config token, X-Service-Token', service(TOKEN)],
        ['minted, Authorization', bearer(minted)], ['minted, X-Service-Token', service(minted)],
      ] as const) {
        const res = await call(srv, path, headers, r.method);
        const known = r.path.startsWith('/api/history/');
        // Known history routes answer 200 with these queries; any other /api route must at least not refuse.
        expect({ route: `${r.method} ${path}`, label, ok: known ? res.status === 200 : res.status !== 401 })
          .toEqual({ route: `${r.method} ${path}`, label, ok: true });
        expect(res.headers.get('www-authenticate')).toBeNull();
      }
    }
  });

  it('lets either header suffice: a wrong Authorization with a right X-Service-Token, and the reverse', async () => {
    expect((await call(srv, '/api/history/runs', { ...bearer('wrong'), ...service(TOKEN) })).status).toBe(200);
    expect((await call(srv, '/api/history/runs', { ...bearer(minted), ...service('wrong') })).status).toBe(200);
    expect((await call(srv, '/api/history/runs', { ...bearer(revoked), ...service(minted) })).status).toBe(200);
  });

  it('reads the Authorization scheme case-insensitively but needs the scheme and a single token', async () => {
    expect((await call(srv, '/api/history/runs', { Authorization: `bearer ${TOKEN}` })).status).toBe(200);
    expectUnauthorized(await call(srv, '/api/history/runs', { Authorization: TOKEN }), 'no scheme');
    expectUnauthorized(await call(srv, '/api/history/runs', { Authorization: `Basic ${TOKEN}` }), 'Basic scheme');
    expectUnauthorized(await call(srv, '/api/history/runs', { Authorization: `Bearer ${TOKEN} extra` }), 'two words');
    expectUnauthorized(await call(srv, '/api/history/runs', { Authorization: 'Bearer ' }), 'empty bearer');
    expectUnauthorized(await call(srv, '/api/history/runs', service('')), 'empty X-Service-Token');
    expectUnauthorized(await call(srv, '/api/history/runs', bearer(TOKEN.slice(0, -1))), 'config token prefix');
    expectUnauthorized(await call(srv, '/api/history/runs', bearer(tokenHash(minted))), 'the stored hash as a token');
  });

  it('answers 401 (not 404) for an unknown /api path without a token, and 404 JSON with one', async () => {
    for (const path of ['/api/nope', '/api/history/nope', '/api', '/api/', '/api/spend-not-here?x=1']) {
      expectUnauthorized(await call(srv, path), `${path} without a token`);
    }
    const res = await call(srv, '/api/nope', bearer(TOKEN));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not found' });
  });

  it('does not let path spelling slip past the bearer (case, trailing slash, encoded separators)', async () => {
    for (const path of ['/API/history/runs', '/Api/History/Runs', '/api/history/runs/', '/api//history/runs', '/api/history/%72uns']) {
      const res = await call(srv, path);
      expect({ path, status: res.status }).toEqual({ path, status: res.status === 404 ? 404 : 401 });
      expect(res.text).not.toContain(RUN_A);
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      expectUnauthorized(await call(srv, '/api/history/runs', {}, method), `${method} without a token`);
    }
  });

  it('never puts /hooks/* under the bearer (each trigger has its own HMAC): no 401, no challenge', async () => {
    for (const [path, method] of [['/hooks/some-trigger', 'GET'], ['/hooks/some-trigger', 'POST'], ['/hooks/a/b', 'GET']] as const) {
      const res = await call(srv, path, {}, method);
      expect({ path, method, status: res.status === 401 ? 401 : 'not 401' }).toEqual({ path, method, status: 'not 401' });
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
  });

  it('answers errors as JSON without a stack trace, and refuses malformed requests before reading them', async () => {
    for (const path of ['/api/history/runs?cursor=not-a-cursor', '/api/history/runs/bad%20id/timeline', '/api/history/runs?limit=99999',
      '/api/history/runs/%E0%A4%A/timeline']) {
      const res = await call(srv, path, bearer(TOKEN));
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(typeof res.body.error).toBe('string');
      expectUnauthorized(await call(srv, path), `${path} without a token`);
    }
    const missing = await call(srv, '/api/history/runs/no-such-run/timeline', bearer(TOKEN));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'run not found' });
  });

  it('takes a revocation through the CLI (token revoke NAME) on the running server at its next request', async () => {
    assertBuilt();
    const victim = (await srv.root.container.get(MintBearer).execute('cli-victim')).token;
    secrets.add(victim);
    expect((await call(srv, '/api/history/runs', bearer(victim))).status).toBe(200);
    const res = chainflow(['token', 'revoke', 'cli-victim'], { cwd: srv.dir, env: { API_TOKEN: TOKEN } });
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
    expect(lines(res.stdout)).toEqual(["revoked bearer 'cli-victim'"]);
    expectUnauthorized(await call(srv, '/api/history/runs', bearer(victim)), 'after CLI revoke (Authorization)');
    expectUnauthorized(await call(srv, '/api/history/runs', service(victim)), 'after CLI revoke (X-Service-Token)');
    expect((await call(srv, '/api/history/runs', bearer(minted))).status).toBe(200);
    const listed = await srv.root.container.get(ListBearers).execute();
    expect(listed.find((b) => b.name === 'cli-victim')).toMatchObject({ revoked: true });
  });

  it('records the last use of a bearer, never its token', async () => {
    const listed = await srv.root.container.get(ListBearers).execute();
    expect(listed.find((b) => b.name === 'http-live')?.last_used_at).toEqual(expect.any(String));
    const text = JSON.stringify(listed);
    for (const s of secrets) expect(text).not.toContain(s);
  });

  it('serves GET / publicly: HTML, no token, with a same-origin-only CSP (nothing inline, no other origin)', async () => {
    const res = await call(srv, '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/<html/i);
    expect(res.headers.get('www-authenticate')).toBeNull();
    for (const s of secrets) expect(res.text).not.toContain(s);
    expect(res.text).not.toMatch(/cf_[A-Za-z0-9_-]{20,}/);

    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|sha256|\*/);
    const directives = new Map(csp.split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
      const [name, ...sources] = d.split(/\s+/);
      return [name!, sources] as const;
    }));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('require-trusted-types-for')).toEqual(["'script'"]);
    // No directive names another origin: only keywords and data: images.
    for (const [name, sources] of directives) {
      for (const s of sources) {
        expect({ name, s, ok: /^'(none|self|script)'$/.test(s) || (name === 'img-src' && s === 'data:') }).toEqual({ name, s, ok: true });
      }
    }
    // Nothing inline: the page's script and style are files of its own origin, served without a token too.
    expect(res.text).not.toMatch(/<script>|<style/i);
    const files = [...res.text.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(files).toHaveLength(2);
    for (const f of files) expect((await call(srv, f)).status).toBe(200);
  });

  it('keeps /live and /health open by default (health_public true)', async () => {
    const live = await call(srv, '/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const health = await call(srv, '/health');
    expect(health.status).toBe(200);
  });

  it('requires the token on /metrics by default, and serves Prometheus text with it', async () => {
    expectUnauthorized(await call(srv, '/metrics'), '/metrics without a token');
    expectUnauthorized(await call(srv, '/metrics', bearer(revoked)), '/metrics with a revoked bearer');
    for (const headers of [bearer(TOKEN), service(TOKEN), bearer(minted), service(minted)]) {
      const res = await call(srv, '/metrics', headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).toContain('chainflow_http_requests_total');
      expect(res.text).toContain('chainflow_journal_rows');
    }
  });
});

describe('authentication on, health_public false and metrics_public true', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      config: { server: { auth: { token: { env: 'API_TOKEN' } }, health_public: false, metrics_public: true } },
      env: { API_TOKEN: TOKEN },
    });
  });
  afterAll(() => srv.close());

  it('refuses /live and /health without a token, serves them with one', async () => {
    for (const path of ['/live', '/health']) {
      expectUnauthorized(await call(srv, path), `${path} without a token`);
      expectUnauthorized(await call(srv, path, bearer('wrong')), `${path} with a wrong token`);
      expect((await call(srv, path, bearer(TOKEN))).status).toBe(200);
      expect((await call(srv, path, service(TOKEN))).status).toBe(200);
    }
  });

  it('serves /metrics without a token: Prometheus text with the request counter and journal rows', async () => {
    await call(srv, '/api/history/runs', bearer(TOKEN));
    const res = await call(srv, '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^# HELP /m);
    expect(res.text).toMatch(/^chainflow_http_requests_total\{[^}]*route="\/api\/history\/runs"[^}]*\} \d+/m);
    expect(res.text).toMatch(/^chainflow_journal_rows\{table="[a-z_]+"\} \d+/m);
  });

  it('still guards /api and keeps GET / public', async () => {
    expectUnauthorized(await call(srv, '/api/history/runs'), '/api without a token');
    expect((await call(srv, '/')).status).toBe(200);
  });
});

describe('authentication off (default config)', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it('serves /api, the probes and /metrics without a token (nothing to check a token against), ignoring credentials', async () => {
    expect((await call(srv, '/api/history/runs')).status).toBe(200);
    expect((await call(srv, '/api/history/runs', bearer('anything'))).status).toBe(200);
    expect((await call(srv, '/live')).status).toBe(200);
    // With authentication off there is nothing to check a token against: /metrics is served.
    expect((await call(srv, '/metrics')).status).toBe(200);
    const unknown = await call(srv, '/api/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'not found' });
  });
});
