import { querySchema, type ParamSpecs } from '../../application/query/query-params';
import { ERROR } from './api-schemas';
import type { DeclaredRoute, JsonSchema, ResponseSpec, RouteSecurity } from './route-table';

/** What the document says about the service. */
export interface OpenApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
}

type Security = ReadonlyArray<Readonly<Record<string, readonly string[]>>>;

const BEARER: Security = [{ bearer: [] }, { serviceToken: [] }];
/** `{}` first: the route is open by default, the bearer applies when the config says so. */
const SECURITY: Record<RouteSecurity, Security> = {
  api: BEARER,
  probe: [{}, ...BEARER],
  metrics: [...BEARER, {}],
  hmac: [{ webhookSignature: [] }],
  public: [{}],
};
const SECURITY_NOTE: Partial<Record<RouteSecurity, string>> = {
  api: 'Requires a token when `server.auth.token` is set.',
  probe: 'Open unless `server.health_public: false`, then a token is required.',
  metrics: 'Requires a token unless `server.metrics_public: true`.',
  hmac: 'Never under the bearer: the trigger\'s own HMAC signature.',
};

/** `/runs/:id/timeline` → `/runs/{id}/timeline`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Query or path parameters, from the same JSON Schema the request is validated with. */
function parameters(specs: ParamSpecs | undefined, where: 'query' | 'path'): JsonSchema[] {
  if (!specs) return [];
  const schema = querySchema(specs) as { properties: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === 'path' || (schema.required ?? []).includes(name), description, schema: rest };
  });
}

const UNAUTHORIZED: ResponseSpec = { description: 'no valid token while auth is on (`WWW-Authenticate: Bearer`)', schema: ERROR };
const AUTH_401: Partial<Record<RouteSecurity, ResponseSpec>> = {
  api: UNAUTHORIZED,
  probe: { ...UNAUTHORIZED, description: `${UNAUTHORIZED.description}, with \`server.health_public: false\`` },
  metrics: { ...UNAUTHORIZED, description: `${UNAUTHORIZED.description}, unless \`server.metrics_public: true\`` },
};

/**
 * The answers every route of a kind gives, beside its own: a query parameter it does not declare is a 400 on every
 * route the table serves; the bearer's 401 wherever auth can be on; an engine command's 403 (cross-origin), 413
 * (body over 1 MiB) and 415 (a body that is not JSON); a storage that does not answer is a 503 on any API route
 * that reads it. A route's own declaration wins.
 */
function answers(route: DeclaredRoute): Readonly<Record<number, ResponseSpec>> {
  const implied: Record<number, ResponseSpec> = {};
  if (!route.static) implied[400] = { description: 'an unknown or repeated query parameter (named in `error`)', schema: ERROR };
  const auth = AUTH_401[route.security];
  if (auth) implied[401] = auth;
  if (route.security === 'api' && route.method === 'post') {
    implied[403] = { description: 'cross-origin request refused (`Sec-Fetch-Site` or `Origin` names another site)', schema: ERROR };
    implied[413] = { description: 'body over 1 MiB', schema: ERROR };
    implied[415] = { description: 'a body sent with another Content-Type than application/json', schema: ERROR };
  }
  if (route.security === 'api' && route.path !== '/api/openapi.json') implied[503] = { description: 'storage unavailable', schema: ERROR };
  return { ...implied, ...route.responses };
}

function operation(route: DeclaredRoute): JsonSchema {
  const headers = Object.entries(route.headers ?? {}).map(([name, h]) => ({ name, in: 'header', required: h.required ?? false, description: h.description, schema: { type: 'string' } }));
  const note = SECURITY_NOTE[route.security];
  return {
    operationId: `${route.method}${openApiPath(route.path).replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    ...(route.description || note ? { description: [route.description, note].filter(Boolean).join(' ') } : {}),
    tags: [route.tag],
    security: SECURITY[route.security],
    parameters: [...parameters(route.pathParams, 'path'), ...parameters(route.query, 'query'), ...headers],
    ...(route.body ? {
      requestBody: {
        required: !route.rawBody && Array.isArray(route.body.required) && route.body.required.length > 0,
        content: { 'application/json': { schema: route.body } },
      },
    } : {}),
    responses: Object.fromEntries(Object.entries(answers(route)).sort(([a], [b]) => Number(a) - Number(b)).map(([status, r]) => [status, {
      description: r.description,
      ...(status === '401' && route.security !== 'hmac' ? { headers: { 'WWW-Authenticate': { description: 'always `Bearer`', schema: { type: 'string', const: 'Bearer' } } } } : {}),
      ...(r.schema || r.contentType ? {
        content: Object.fromEntries((r.contentType ?? 'application/json').split(/,\s*/).map((type) => [type, r.schema ? { schema: r.schema } : {}])),
      } : {}),
    }])),
  };
}

/** The OpenAPI 3.1 document of the declared routes: every path, parameter and body from the route table. */
export function openApiDocument(routes: readonly DeclaredRoute[], info: OpenApiInfo): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    (paths[path] ??= {})[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'The config token or a named bearer (`chainflow token mint`).' },
        serviceToken: { type: 'apiKey', in: 'header', name: 'X-Service-Token', description: 'The same token, for proxies that replace Authorization.' },
        webhookSignature: { type: 'apiKey', in: 'header', name: 'X-Chainflow-Signature', description: 't=<unix seconds>,v1=<hex HMAC-SHA256>' },
      },
    },
  };
}
