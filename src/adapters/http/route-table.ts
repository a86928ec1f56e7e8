import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { Router, type RequestHandler } from 'express';
import { repeatedParameter, unknownParameter, type ParamSpecs } from '../../application/query/query-params';
import { InvalidInputError } from '../../domain/errors';

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 takes it). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * Who may call a route. `api`: the bearer when auth is on (every `/api` route); `probe`: open unless
 * `server.health_public: false`; `metrics`: the bearer unless `server.metrics_public: true`; `hmac`: the
 * trigger's own signature, never the bearer; `public`: anyone.
 */
export type RouteSecurity = 'api' | 'probe' | 'metrics' | 'hmac' | 'public';

export interface ResponseSpec {
  readonly description: string;
  /** The body's schema; JSON unless `contentType` says otherwise. */
  readonly schema?: JsonSchema;
  readonly contentType?: string;
}

/** What a route takes and answers: declared once, next to its handler; validation and the OpenAPI document read it. */
export interface RouteSpec {
  readonly summary: string;
  readonly description?: string;
  /** OpenAPI tag (history, spend, engine, webhooks, operations). */
  readonly tag: string;
  readonly security: RouteSecurity;
  /** Path parameters (`:id`), for the document; the use case validates them. */
  readonly pathParams?: ParamSpecs;
  /**
   * Query parameters. Any other name is refused (400 naming it), and each value must be given once. These are the
   * very specs the use case parses with, so the document and the validation cannot differ. Default: none.
   */
  readonly query?: ParamSpecs;
  /** Request headers the route reads (for the document). */
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly required?: boolean }>>;
  /** JSON body, validated with ajv before the handler runs (400 naming the member). Absent: no body is read. */
  readonly body?: JsonSchema;
  /** `raw`: the body is passed on as bytes (webhooks sign the raw body), described by `body` for the document. */
  readonly rawBody?: boolean;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

export type HttpMethod = 'get' | 'post';

/** A declared route with its full path in Express syntax (`/api/history/runs/:id/timeline`). */
export interface DeclaredRoute extends RouteSpec {
  readonly method: HttpMethod;
  readonly path: string;
  /** Served by a middleware (the static page), not by a route handler of this table. */
  readonly static?: boolean;
}

const ajv = new Ajv({ allErrors: false, strict: false, validateSchema: false });

/**
 * Every route of the server, declared with its schemas. A route is registered through `RouteTable.router`, so
 * that it cannot be served without being in the OpenAPI document (a test walks Express's routes to check).
 */
export class RouteTable {
  private readonly declared: DeclaredRoute[] = [];

  get routes(): readonly DeclaredRoute[] {
    return this.declared;
  }

  /** Declares a path that a middleware serves (the embedded page at `/`), so that the document lists it too. */
  staticPath(path: string, spec: RouteSpec): void {
    this.declared.push({ ...spec, method: 'get', path, static: true });
  }

  /** A router for routes mounted at `mount` (`/api/history`); extra handlers (body parsers, auth) run first. */
  router(mount: string): DeclaredRouter {
    return new DeclaredRouter(mount === '/' ? '' : mount, (route) => this.declared.push(route));
  }
}

export class DeclaredRouter {
  readonly express = Router();

  constructor(private readonly mount: string, private readonly add: (route: DeclaredRoute) => void) {}

  get(path: string, spec: RouteSpec, ...handlers: RequestHandler[]): this {
    return this.declare('get', path, spec, handlers);
  }

  post(path: string, spec: RouteSpec, ...handlers: RequestHandler[]): this {
    return this.declare('post', path, spec, handlers);
  }

  private declare(method: HttpMethod, path: string, spec: RouteSpec, handlers: readonly RequestHandler[]): this {
    this.add({ ...spec, method, path: `${this.mount}${path}` });
    const checks: RequestHandler[] = [queryCheck(spec.query ?? {})];
    if (spec.body && !spec.rawBody) checks.push(bodyCheck(spec.body));
    this.express[method](path, ...checks, ...handlers);
    return this;
  }
}

/** Refuses a parameter the route does not declare, and one given more than once, naming it. */
function queryCheck(specs: ParamSpecs): RequestHandler {
  return (req, _res, next) => {
    // Express's query parser builds objects without a prototype, so `__proto__` is an own key here.
    const query = req.query as Record<string, unknown>;
    for (const name of Object.keys(query)) {
      if (!Object.hasOwn(specs, name)) throw unknownParameter(name, specs);
      if (typeof query[name] !== 'string') throw repeatedParameter(name);
    }
    next();
  };
}

/** Validates a JSON body against the route's schema; an absent body counts as `{}`. */
function bodyCheck(schema: JsonSchema): RequestHandler {
  const validate: ValidateFunction = ajv.compile(schema);
  return (req, _res, next) => {
    const body: unknown = req.body ?? {};
    if (!validate(body)) throw bodyError(validate.errors?.[0]);
    req.body = body;
    next();
  };
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string', object: 'a JSON object', array: 'a list', boolean: 'true or false', integer: 'an integer', number: 'a number',
};

/** One line naming the member at fault and what is wrong; never the value it was given. */
function bodyError(error: ErrorObject | undefined): InvalidInputError {
  if (!error) return new InvalidInputError('body', 'invalid');
  const at = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const member = String(params.additionalProperty);
      return new InvalidInputError(/^[A-Za-z0-9_.-]{1,64}$/.test(member) ? member : 'body', 'unknown member');
    }
    case 'required':
      return new InvalidInputError(String(params.missingProperty), 'required');
    case 'type':
      return at ? new InvalidInputError(at, `must be ${TYPE_WORDS[String(params.type)] ?? String(params.type)}`) : new InvalidInputError('body', 'must be a JSON object');
    case 'enum':
      return new InvalidInputError(at || 'body', `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`);
    case 'maxLength':
      return new InvalidInputError(at || 'body', `must be text of at most ${String(params.limit)} characters`);
    default:
      return new InvalidInputError(at || 'body', 'invalid');
  }
}
