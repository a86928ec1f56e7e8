/** An outbound HTTP request of an http_call step. */
export interface HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as is (JSON text for a JSON body). */
  readonly body?: string;
  /** Whole exchange bound, in ms. */
  readonly timeoutMs: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** The request did not complete: `timeout` past timeoutMs, `network` for any other transport failure. */
export class HttpFailure extends Error {
  constructor(readonly reason: 'timeout' | 'network', message: string) {
    super(message);
    this.name = 'HttpFailure';
  }
}

/** Calls HTTP endpoints for http_call steps. Resolves for every HTTP status; rejects only with HttpFailure. */
export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
}
export const HttpClient = Symbol('HttpClient');
