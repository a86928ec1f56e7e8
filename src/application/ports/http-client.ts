/** An outbound HTTP request of an http_call step. */
export interface HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as is (JSON text for a JSON body). */
  readonly body?: string;
  /** Whole exchange bound (redirects and the body included), in ms. */
  readonly timeoutMs: number;
  /** The most response body bytes read; a longer body rejects with HttpFailure `too_large` once past it. */
  readonly maxBodyBytes: number;
  /**
   * `follow`: redirects are followed wherever they lead (a bounded number of hops). `same-origin`: only to the
   * request's own origin; one to another origin rejects with HttpFailure `redirect_refused`, so headers that carry a
   * secret never reach a host the operator did not name.
   */
  readonly redirects: 'follow' | 'same-origin';
}

export interface HttpResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * The request did not complete: `timeout` past timeoutMs, `too_large` for a body past maxBodyBytes,
 * `redirect_refused` for a redirect the request's `redirects` forbids, `network` for any other transport failure.
 * Messages never hold a URL (its query may carry a secret).
 */
export class HttpFailure extends Error {
  constructor(readonly reason: 'timeout' | 'network' | 'too_large' | 'redirect_refused', message: string) {
    super(message);
    this.name = 'HttpFailure';
  }
}

/** Calls HTTP endpoints for http_call steps. Resolves for every HTTP status; rejects only with HttpFailure. */
export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
}
export const HttpClient = Symbol('HttpClient');
