import { HttpFailure, type HttpClient, type HttpRequest, type HttpResponse } from '../../application/ports/http-client';

/** http_call steps over Node's fetch (undici); the whole exchange, body included, is bounded by the timeout. */
export class FetchHttpClient implements HttpClient {
  async request(req: HttpRequest): Promise<HttpResponse> {
    const signal = AbortSignal.timeout(req.timeoutMs);
    try {
      const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal, redirect: 'follow' });
      const body = await res.text();
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
    } catch (err) {
      if (signal.aborted) throw new HttpFailure('timeout', 'timed out');
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new HttpFailure('network', cause ? `network error ${cause}` : 'network error');
    }
  }
}
