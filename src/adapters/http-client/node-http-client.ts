import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { HttpFailure, type HttpClient, type HttpRequest, type HttpResponse } from '../../application/ports/http-client';

/** As fetch's own bound on a followed chain (the Fetch standard's 20). */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that name who is calling: not carried to another origin, as fetch drops them on a cross-origin hop. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/**
 * http_call steps over Node's `http`/`https` with keep-alive agents; the whole exchange, redirects and body
 * included, is bounded by the timeout. The body is streamed and reading stops at the cap, so an endless or huge
 * answer costs at most the cap.
 *
 * Not fetch: its per-call machinery (Request, Headers, AbortSignal and web-stream objects) was about a third of
 * a worker's CPU per run of three http_calls (docs/benchmarks.md, `--scale`). What fetch did on the wire is kept:
 * `accept: *\/*` and a text/plain type for a body without one, a redirect's method rules, a compressed answer
 * decoded, credentials dropped on a cross-origin hop. Idle connections are kept (LIFO, so few stay warm) and closed
 * a second before the server's announced keep-alive timeout, or after 5 s without one (Node's agent).
 */
export class NodeHttpClient implements HttpClient {
  private readonly agents = {
    'http:': new HttpAgent({ keepAlive: true, timeout: 5_000, scheduling: 'lifo' }),
    'https:': new HttpsAgent({ keepAlive: true, timeout: 5_000, scheduling: 'lifo' }),
  };

  async request(req: HttpRequest): Promise<HttpResponse> {
    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const first = new URL(req.url);
      let url = first;
      let method = req.method.toUpperCase();
      let body = req.body;
      let headers: Record<string, string> = lowerCased(req.headers);
      for (let hops = 0; ; hops++) {
        const res = await this.send(url, method, headers, body, signal);
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (!REDIRECT_STATUSES.has(status) || location === undefined) {
          return { status, contentType: res.headers['content-type'] ?? '', body: await readCapped(res, req.maxBodyBytes) };
        }
        res.destroy();
        if (hops >= MAX_REDIRECTS) throw new HttpFailure('network', `more than ${MAX_REDIRECTS} redirects`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new HttpFailure('network', `HTTP ${status} redirect with an unusable Location`);
        }
        // The origin only (scheme, host, port): never the path or query, where a secret may travel.
        if (req.redirects === 'same-origin' && next.origin !== first.origin) {
          throw new HttpFailure('redirect_refused', `HTTP ${status} redirect to another origin (${next.origin}) refused: the step sends secret headers`);
        }
        if (next.origin !== url.origin) headers = without(headers, (name) => CREDENTIAL_HEADERS.has(name));
        // As fetch does: 303 (and 301/302 after a POST) turn the request into a GET without its body.
        if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          headers = without(headers, (name) => name.startsWith('content-'));
        }
        url = next;
      }
    } catch (err) {
      if (err instanceof HttpFailure) throw err;
      if (signal.aborted) throw new HttpFailure('timeout', 'timed out');
      const code = (err as { code?: unknown }).code;
      throw new HttpFailure('network', typeof code === 'string' ? `network error ${code}` : 'network error');
    }
  }

  /** One exchange up to its response's head; the body is left to read. */
  private send(url: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<IncomingMessage> {
    const protocol = url.protocol;
    if (protocol !== 'http:' && protocol !== 'https:') return Promise.reject(new HttpFailure('network', `network error: unsupported scheme ${protocol}`));
    const out: OutgoingHttpHeaders = { accept: '*/*', ...headers };
    if (body !== undefined) {
      out['content-type'] ??= 'text/plain;charset=UTF-8';
      out['content-length'] = Buffer.byteLength(body);
    }
    return new Promise((resolve, reject) => {
      const options = { method, headers: out, signal, agent: this.agents[protocol] };
      const request = (protocol === 'https:' ? httpsRequest : httpRequest)(url, options, resolve);
      request.on('error', reject);
      request.end(body);
    });
  }
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function without(headers: Record<string, string>, drop: (name: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name)));
}

/** The body as text (decoded as fetch decodes it), read chunk by chunk; past `max` bytes reading stops and the call fails. */
function readCapped(res: IncomingMessage, max: number): Promise<string> {
  const tooLarge = (): HttpFailure => new HttpFailure('too_large', 'response too large');
  const declared = Number(res.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    res.destroy();
    return Promise.reject(tooLarge());
  }
  const decoded = decoderOf(res);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      res.destroy();
      if (decoded !== res) decoded.destroy();
      reject(err);
    };
    decoded.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > max) fail(tooLarge());
      else chunks.push(chunk);
    });
    decoded.once('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    });
    decoded.on('error', fail);
    // A connection that ends before the body did (reset, or the timeout's abort) never emits `end`.
    res.once('close', () => {
      if (!res.complete) fail(Object.assign(new Error('response ended early'), { code: 'ECONNRESET' }));
    });
    if (decoded !== res) res.on('error', fail);
  });
}

/** The body's bytes as the server meant them: a gzip, deflate or brotli body decoded, as fetch does. */
function decoderOf(res: IncomingMessage): Readable {
  const encoding = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip()
    : encoding === 'deflate' ? createInflate()
      : encoding === 'br' ? createBrotliDecompress()
        : undefined;
  return decoder ? res.pipe(decoder) : res;
}
