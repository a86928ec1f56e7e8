import { HttpFailure, type HttpClient, type HttpRequest, type HttpResponse } from '../../application/ports/http-client';

/** As fetch's own bound on a followed chain (the Fetch standard's 20). */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * http_call steps over Node's fetch (undici); the whole exchange, redirects and body included, is bounded by the
 * timeout. The body is streamed and reading stops at the cap, so an endless or huge answer costs at most the cap.
 */
export class FetchHttpClient implements HttpClient {
  async request(req: HttpRequest): Promise<HttpResponse> {
    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const res = req.redirects === 'follow'
        ? await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal, redirect: 'follow' })
        : await sameOriginFetch(req, signal);
      const body = await readCapped(res, req.maxBodyBytes);
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
    } catch (err) {
      if (err instanceof HttpFailure) throw err;
      if (signal.aborted) throw new HttpFailure('timeout', 'timed out');
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new HttpFailure('network', cause ? `network error ${cause}` : 'network error');
    }
  }
}

/**
 * Follows redirects by hand, each only within the first URL's origin: fetch's own `follow` drops `Authorization`
 * on a cross-origin hop but forwards every other header (an `X-Api-Key` would leak), and refusing is safer than
 * calling on without the secret the far end asked for.
 */
async function sameOriginFetch(req: HttpRequest, signal: AbortSignal): Promise<Response> {
  const origin = new URL(req.url).origin;
  let url = req.url;
  let method = req.method;
  let body = req.body;
  let headers: Record<string, string> = { ...req.headers };
  for (let hops = 0; ; hops++) {
    const res = await fetch(url, { method, headers, body, signal, redirect: 'manual' });
    const location = res.headers.get('location');
    if (!REDIRECT_STATUSES.has(res.status) || location === null) return res;
    await res.body?.cancel();
    if (hops >= MAX_REDIRECTS) throw new HttpFailure('network', `more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new HttpFailure('network', `HTTP ${res.status} redirect with an unusable Location`);
    }
    // The origin only (scheme, host, port): never the path or query, where a secret may travel.
    if (next.origin !== origin) {
      throw new HttpFailure('redirect_refused', `HTTP ${res.status} redirect to another origin (${next.origin}) refused: the step sends secret headers`);
    }
    // As fetch does: 303 (and 301/302 after a POST) turn the request into a GET without its body.
    if ((res.status === 303 && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-/i.test(name)));
    }
    url = next.href;
  }
}

/** The body as text, read chunk by chunk; past `max` bytes the stream is cancelled and the call fails. */
async function readCapped(res: Response, max: number): Promise<string> {
  const tooLarge = (): HttpFailure => new HttpFailure('too_large', 'response too large');
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
