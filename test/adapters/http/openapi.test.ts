/**
 * `GET /api/openapi.json` (CONTRACT 7, issue #13 item 8): the API as OpenAPI 3.1, generated from the route
 * declarations whose schemas also validate the requests. It validates with a maintained validator, lists every
 * route Express serves, and the server's real answers match the schemas it documents.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { WriteDemoJournal } from '../../../src/application/journal/demo-journal.use-case';
import { startTestServer, type TestServer } from '../../support/server';

type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };
type Operation = {
  parameters: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>;
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
  security: Array<Record<string, string[]>>;
};

/** Every route Express serves: method and path in OpenAPI form, found by walking the routers' stacks. */
function expressRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: unknown[], prefix: string): void => {
    for (const layer of stack as Array<{ route?: { path: string; methods: Record<string, boolean> }; handle: { stack?: unknown[] }; rawPath?: unknown }>) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          found.push(`${method} ${`${prefix}${layer.route.path}`.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
        }
      } else if (layer.handle.stack) {
        const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, `${prefix}${mount}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: unknown[] } }).router.stack, '');
  return found.sort();
}

describe('GET /api/openapi.json', () => {
  let srv: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    srv = await startTestServer();
    await srv.root.container.get(WriteDemoJournal).execute();
    const res = await srv.get('/api/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as Doc;
  });
  afterAll(() => srv.close());

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('lists every route Express serves, and nothing it does not', () => {
    const app = srv.server.listeners('request')[0] as Express;
    const served = expressRoutes(app);
    // `GET /` is the page's shell (a route); its assets under `/assets/` are static files, not API routes.
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)).sort();
    expect(served.filter((r) => r.includes('/api/')).length).toBeGreaterThan(10);
    expect(documented).toEqual(served);
    expect(doc.paths['/']!.get!.security).toEqual([{}]);
  });

  it('names the routes the SPEC and CONTRACT name, with their security', () => {
    const op = (method: string, path: string): Operation => {
      const found = doc.paths[path]?.[method];
      if (!found) throw new Error(`${method} ${path} is not documented`);
      return found;
    };
    for (const path of ['/api/history/runs', '/api/history/runs/{id}/timeline', '/api/history/txs', '/api/history/approvals',
      '/api/history/waiting', '/api/history/reorgs', '/api/history/replays', '/api/history/workflows', '/api/history/export',
      '/api/history/diff', '/api/spend', '/api/workflows', '/api/openapi.json']) {
      expect(op('get', path).security).toEqual([{ bearer: [] }, { serviceToken: [] }]);
    }
    for (const path of ['/api/workflows/{wf}/runs', '/api/workflows/{wf}/pause', '/api/workflows/{wf}/resume',
      '/api/approvals/{id}/decision', '/api/runs/{id}/cancel']) {
      expect(op('post', path).security).toEqual([{ bearer: [] }, { serviceToken: [] }]);
    }
    expect(op('post', '/hooks/{workflow}').security).toEqual([{ webhookSignature: [] }]);
    // A manual run takes an Idempotency-Key; a repeat answers 200 with the run it started (CONTRACT 8.7).
    const manual = op('post', '/api/workflows/{wf}/runs');
    expect(manual.parameters.find((p) => p.name === 'Idempotency-Key')).toMatchObject({ in: 'header', required: false });
    expect(Object.keys(manual.responses)).toEqual(expect.arrayContaining(['200', '202', '400']));
    expect(op('get', '/live').security).toContainEqual({});
    expect(op('get', '/health').security).toContainEqual({});
    expect(op('get', '/metrics').security[0]).toEqual({ bearer: [] });
  });

  it('documents each query parameter with the schema that validates it', () => {
    const runs = doc.paths['/api/history/runs']!.get!;
    const names = runs.parameters.filter((p) => p.in === 'query').map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['workflow', 'status', 'trigger', 'network', 'contract', 'relayer', 'tx_hash',
      'block', 'run_id', 'step_id', 'error_kind', 'approval_status', 'session', 'since', 'until', 'limit', 'cursor']));
    expect(runs.parameters.find((p) => p.name === 'session')!.schema.enum).toEqual(['live', 'replay', 'test']);
    const diff = doc.paths['/api/history/diff']!.get!.parameters;
    expect(diff.filter((p) => p.required).map((p) => p.name)).toEqual(['a', 'b']);
  });

  /** A concrete URL for each documented GET path: path parameters and required query parameters from the demo journal. */
  const concrete = async (path: string): Promise<string[]> => {
    const runs = (await srv.get('/api/history/runs?limit=12')).body.items as Array<{ run_id: string }>;
    const ids = runs.map((r) => r.run_id);
    if (path === '/api/history/runs/{id}/timeline') return [...ids.slice(0, 6), 'demo-topup-1'].map((id) => `/api/history/runs/${id}/timeline`);
    // Pairs of unlike runs, so that fields present in one run only are compared too.
    if (path === '/api/history/diff') return ids.slice(1).map((b) => `/api/history/diff?a=${ids[0]}&b=${b}`);
    if (path.includes('{')) throw new Error(`no concrete URL for GET ${path}: add one to this test`);
    return [path];
  };

  it('every GET route of the table answers what its document says: a documented status, a body its schema accepts', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const gets = Object.entries(doc.paths).filter(([, ops]) => ops.get).map(([path]) => path);
    expect(gets.length).toBeGreaterThan(15);
    for (const path of gets) {
      const op = doc.paths[path]!.get!;
      for (const url of await concrete(path)) {
        const res = await srv.get(url);
        const documented = op.responses[String(res.status)];
        expect({ url, status: res.status, documented: Boolean(documented) }).toEqual({ url, status: res.status, documented: true });
        const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
        const content = documented!.content ?? {};
        expect({ url, type, documentedTypes: Object.keys(content) }).toEqual({ url, type, documentedTypes: expect.arrayContaining([type]) });
        const schema = content[type]?.schema;
        if (type !== 'application/json' || !schema) continue;
        const validate = ajv.compile(schema);
        const ok = validate(res.body);
        expect({ url, errors: ok ? null : validate.errors?.slice(0, 3) }).toEqual({ url, errors: null });
      }
    }
  });

  it('every GET route but the page documents the 400 it gives for an unknown parameter, and its answer fits', async () => {
    const ajv = new Ajv({ strict: false });
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!ops.get || path === '/') continue;
      const [url] = await concrete(path);
      const res = await srv.get(`${url}${url!.includes('?') ? '&' : '?'}no_such_param=1`);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      const schema = ops.get.responses['400']?.content?.['application/json']?.schema;
      expect({ path, documented: Boolean(schema) }).toEqual({ path, documented: true });
      expect(ajv.validate(schema!, res.body)).toBe(true);
    }
  });

  it('lists 401 on every route under the bearer, and the engine commands\' 403, 413 and 415', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const underBearer = op.security.some((s) => 'bearer' in s);
        expect({ method, path, has401: '401' in op.responses }).toEqual({ method, path, has401: underBearer || path.startsWith('/hooks/') });
        if (method === 'post' && path.startsWith('/api/')) {
          expect({ method, path, statuses: Object.keys(op.responses) }).toEqual({ method, path, statuses: expect.arrayContaining(['403', '413', '415']) });
        }
      }
    }
  });

  it('states enums for statuses, kinds and sessions, the approval reason limit, and diff changes with a or b', () => {
    const schemaOf = (path: string): Record<string, any> => doc.paths[path]!.get!.responses['200']!.content!['application/json']!.schema as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const run = schemaOf('/api/history/runs').properties.items.items.properties;
    expect(run.status.enum).toEqual(['running', 'waiting', 'succeeded', 'failed', 'dead_lettered', 'cancelled', 'skipped']);
    expect(run.session.enum).toEqual(['live', 'replay', 'test']);
    expect(run.trigger.enum).toEqual(['manual', 'cron', 'webhook', 'event']);
    expect(run.approval_status.enum).toEqual(['pending', 'approved', 'rejected', 'expired', null]);
    expect(run.error_kind.enum).toBeUndefined();
    const send = schemaOf('/api/history/txs').properties.items.items.properties;
    expect(send.status.enum).toEqual(['queued', 'parked', 'submitted', 'settled']);
    expect(send.outcome.enum).toEqual(['confirmed', 'reverted', 'dropped', 'expired', 'replaced', null]);
    expect(schemaOf('/api/history/approvals').properties.items.items.properties.status.enum).toEqual(['pending', 'approved', 'rejected', 'expired']);
    expect(schemaOf('/api/history/waiting').properties.items.items.properties.wait_kind.enum).toEqual(['tx', 'delay', 'event', 'approval', null]);
    expect(schemaOf('/api/history/replays').properties.items.items.properties.kind.enum).toEqual(['replay', 'test']);
    const decision = (doc.paths['/api/approvals/{id}/decision']!.post as unknown as { requestBody: { content: Record<string, { schema: Record<string, any> }> } }); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(decision.requestBody.content['application/json']!.schema.properties.reason.maxLength).toBe(2000);
    for (const path of ['/health', '/metrics', '/api/openapi.json']) expect(Object.keys(doc.paths[path]!.get!.responses)).toContain('400');
  });
});

describe('GET /api/openapi.json with auth on', () => {
  const TOKEN = 'openapi-token-7d1e5b';
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      config: { secrets: { api_token: { env: 'API_TOKEN' } }, server: { auth: { token: { secret: 'api_token' } }, health_public: false } },
      env: { API_TOKEN: TOKEN },
    });
  });
  afterAll(() => srv?.close());

  it('every route under the bearer answers a documented 401 without a token, with a body its schema accepts', async () => {
    const res = await fetch(`${srv.baseUrl}/api/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const doc = (await res.json()) as Doc;
    const ajv = new Ajv({ strict: false });
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.security.some((s) => 'bearer' in s)) continue;
        const url = path.replace(/\{[^}]+\}/g, 'x-1');
        const answer = await fetch(`${srv.baseUrl}${url}`, { method: method.toUpperCase() });
        expect({ method, path, status: answer.status }).toEqual({ method, path, status: 401 });
        const schema = op.responses['401']?.content?.['application/json']?.schema;
        expect({ method, path, documented: Boolean(schema) }).toEqual({ method, path, documented: true });
        expect(ajv.validate(schema!, await answer.json())).toBe(true);
        const documentedHeader = (op.responses['401'] as { headers?: Record<string, { schema: { const?: string } }> }).headers?.['WWW-Authenticate'];
        expect({ method, path, header: answer.headers.get('www-authenticate') }).toEqual({ method, path, header: documentedHeader?.schema.const });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
