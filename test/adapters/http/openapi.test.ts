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

  it('the real answers of every list and item route match their documented 200 schema', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const anyRun = (await srv.get('/api/history/runs?limit=2')).body.items as Array<{ run_id: string }>;
    const paths = ['/api/history/runs', '/api/history/txs', '/api/history/approvals', '/api/history/waiting', '/api/history/reorgs',
      '/api/history/replays', '/api/history/workflows', '/api/spend', '/api/workflows', `/api/history/runs/${anyRun[0]!.run_id}/timeline`,
      `/api/history/diff?a=${anyRun[0]!.run_id}&b=${anyRun[1]!.run_id}`, '/live', '/health'];
    expect((await srv.get('/')).headers.get('content-type')).toMatch(/^text\/html/);
    for (const path of paths) {
      const res = await srv.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const documented = Object.keys(doc.paths).find((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.split('?')[0]!))!;
      const schema = doc.paths[documented]!.get!.responses['200']!.content!['application/json']!.schema!;
      const validate = ajv.compile(schema);
      const ok = validate(res.body);
      expect({ path, errors: ok ? null : validate.errors }).toEqual({ path, errors: null });
    }
  });
});
