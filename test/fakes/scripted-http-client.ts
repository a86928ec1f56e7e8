import { HttpFailure, type HttpClient, type HttpRequest, type HttpResponse } from '../../src/application/ports/http-client';

type Answer = HttpResponse | HttpFailure | ((req: HttpRequest) => HttpResponse | HttpFailure | Promise<HttpResponse | HttpFailure>);

/**
 * An HttpClient that answers from a script, per URL prefix, in order (the last answer repeats), and records every
 * request it was sent. As the real client, a body past the request's maxBodyBytes fails `too_large`; a scripted
 * redirect refusal is an HttpFailure in the script.
 */
export class ScriptedHttpClient implements HttpClient {
  readonly requests: HttpRequest[] = [];
  private readonly script = new Map<string, Answer[]>();

  on(urlPrefix: string, ...answers: Answer[]): this {
    this.script.set(urlPrefix, answers);
    return this;
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    this.requests.push(req);
    const key = [...this.script.keys()].find((prefix) => req.url.startsWith(prefix));
    const answers = key === undefined ? [] : this.script.get(key)!;
    const next = answers.length > 1 ? answers.shift()! : answers[0];
    const answer = typeof next === 'function' ? await next(req) : next;
    if (answer === undefined) return { status: 200, contentType: 'application/json', body: '{"ok":true}' };
    if (answer instanceof HttpFailure) throw answer;
    if (Buffer.byteLength(answer.body) > req.maxBodyBytes) throw new HttpFailure('too_large', 'response too large');
    return answer;
  }
}

export const ok = (body: unknown = { ok: true }): HttpResponse => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
export const status = (code: number): HttpResponse => ({ status: code, contentType: 'text/plain', body: `status ${code}` });
