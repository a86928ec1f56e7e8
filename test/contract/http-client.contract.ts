import { HttpFailure, type HttpClient, type HttpRequest } from '../../src/application/ports/http-client';

/** A far end the contract talks to: `answer` scripts a path and returns its URL; `sent` lists what reached it. */
export interface FarEnd {
  readonly client: HttpClient;
  answer(path: string, reply: { status: number; contentType: string; body: string }): string;
  sent(path: string): Array<{ method: string; headers: Record<string, string | undefined>; body: string }>;
  close(): Promise<void>;
}

/**
 * What every HttpClient must do (NodeHttpClient over real sockets and the scripted fake alike): every status
 * resolves with its body, the request goes out as given, and a body past `maxBodyBytes` rejects `too_large`.
 */
export function httpClientContract(name: string, open: () => Promise<FarEnd>): void {
  describe(`http client contract: ${name}`, () => {
    let far: FarEnd;
    beforeEach(async () => {
      far = await open();
    });
    afterEach(async () => far.close());
    const request = (url: string, over: Partial<HttpRequest> = {}): HttpRequest =>
      ({ method: 'GET', url, headers: {}, timeoutMs: 10_000, maxBodyBytes: 1024, redirects: 'same-origin', ...over });

    it('resolves any status with its body and type, and sends the method, headers and body as given', async () => {
      const url = far.answer('/q', { status: 503, contentType: 'application/json', body: '{"busy":true}' });
      const res = await far.client.request(request(url, { method: 'POST', headers: { 'Idempotency-Key': 'r1.q:2', 'content-type': 'application/json' }, body: '{"a":1}' }));
      expect(res).toEqual({ status: 503, contentType: 'application/json', body: '{"busy":true}' });
      expect(far.sent('/q')).toEqual([expect.objectContaining({ method: 'POST', body: '{"a":1}', headers: expect.objectContaining({ 'idempotency-key': 'r1.q:2' }) })]);
    });

    it('reads a body of exactly maxBodyBytes; one byte more rejects too_large "response too large"', async () => {
      const fits = far.answer('/fits', { status: 200, contentType: 'text/plain', body: 'a'.repeat(1024) });
      expect((await far.client.request(request(fits))).body).toHaveLength(1024);
      const over = far.answer('/over', { status: 200, contentType: 'text/plain', body: 'a'.repeat(1025) });
      const err = await far.client.request(request(over)).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(HttpFailure);
      expect(err).toMatchObject({ reason: 'too_large', message: 'response too large' });
    });
  });
}
