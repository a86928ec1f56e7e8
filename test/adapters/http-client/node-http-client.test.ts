/**
 * NodeHttpClient against real HTTP servers on 127.0.0.1 (CONTRACT 8.7): the body is read up to the cap and no
 * further, while a request carries secret headers a redirect never takes them to another origin, and what fetch
 * did on the wire (defaults, decoding, credentials on a cross-origin hop, failures by name) still holds.
 */
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { NodeHttpClient } from '../../../src/adapters/http-client';
import { HttpFailure, type HttpRequest } from '../../../src/application/ports/http-client';

const MIB = 1024 * 1024;

interface Seen { readonly method: string; readonly url: string; readonly headers: IncomingHttpHeaders; readonly body: string }

/** A local server that records what it was sent and answers with `handler`. */
async function serve(handler: RequestListener): Promise<{ url: string; seen: Seen[]; close: () => Promise<void>; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => void (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, seen, server,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const client = new NodeHttpClient();
const request = (url: string, over: Partial<HttpRequest> = {}): HttpRequest =>
  ({ method: 'GET', url, headers: {}, timeoutMs: 10_000, maxBodyBytes: MIB, redirects: 'follow', ...over });
const failure = (promise: Promise<unknown>): Promise<HttpFailure> =>
  promise.then(() => { throw new Error('expected an HttpFailure'); }, (err: unknown) => {
    if (!(err instanceof HttpFailure)) throw err;
    return err;
  });

describe('NodeHttpClient: the response body cap', () => {
  let far: Awaited<ReturnType<typeof serve>>;
  let endlessWrites = 0;
  beforeAll(async () => {
    far = await serve((req, res) => {
      const size = Number(new URL(req.url!, 'http://x').searchParams.get('size'));
      if (req.url!.startsWith('/endless')) {
        // Chunked, no Content-Length, never ending: only a reader that stops at the cap gets out before the timeout.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = 'x'.repeat(64 * 1024);
        const write = (): void => {
          if (res.destroyed) return;
          endlessWrites++;
          if (res.write(chunk)) setImmediate(write);
          else res.once('drain', write);
        };
        res.on('error', () => undefined);
        write();
        return;
      }
      if (req.url!.startsWith('/chunked')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('y'.repeat(size));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
      res.end('z'.repeat(size));
    });
  });
  afterAll(() => far.close());

  it('reads a body just under 1 MiB, and exactly 1 MiB, whole', async () => {
    expect((await client.request(request(`${far.url}/fixed?size=${MIB - 1}`))).body).toHaveLength(MIB - 1);
    expect((await client.request(request(`${far.url}/chunked?size=${MIB}`))).body).toHaveLength(MIB);
  });

  it('fails a 2 MiB body `too_large` "response too large", declared or chunked', async () => {
    for (const path of ['/fixed', '/chunked']) {
      const err = await failure(client.request(request(`${far.url}${path}?size=${2 * MIB}`)));
      expect({ path, reason: err.reason, message: err.message }).toEqual({ path, reason: 'too_large', message: 'response too large' });
    }
  });

  it('stops reading an endless body at the cap instead of buffering it until the timeout', async () => {
    const err = await failure(client.request(request(`${far.url}/endless`, { timeoutMs: 20_000 })));
    expect(err.reason).toBe('too_large');
    // What the server got to write is the cap plus socket buffers, not the gigabytes a reader to the end would pull in 20 s.
    expect(endlessWrites * 64 * 1024).toBeLessThan(64 * MIB);
  });
});

describe('NodeHttpClient: redirects', () => {
  let home: Awaited<ReturnType<typeof serve>>;
  let other: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    other = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"where":"other"}');
    });
    home = await serve((req, res) => {
      const path = req.url!.split('?')[0]!;
      if (path === '/away') {
        res.writeHead(302, { location: `${other.url}/landing?token=query-secret-81c` });
        res.end();
      } else if (path === '/local') {
        res.writeHead(307, { location: '/landing' });
        res.end();
      } else if (path === '/see-other') {
        res.writeHead(303, { location: '/landing' });
        res.end();
      } else if (path === '/loop') {
        res.writeHead(302, { location: '/loop' });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"where":"home"}');
      }
    });
  });
  afterAll(async () => {
    await home.close();
    await other.close();
  });
  beforeEach(() => {
    home.seen.length = 0;
    other.seen.length = 0;
  });

  const secret = { 'X-Api-Key': 'api-key-secret-4f2', Authorization: 'Bearer bearer-secret-9a0', 'Idempotency-Key': 'r1.s:1' };

  it('with secret headers, refuses a redirect to another origin: the other server never sees the request, the message names no URL', async () => {
    const err = await failure(client.request(request(`${home.url}/away`, { headers: secret, redirects: 'same-origin' })));
    expect(err.reason).toBe('redirect_refused');
    expect(err.message).toMatch(/redirect to another origin .*refused/);
    expect(err.message).not.toMatch(/landing|token|query-secret/);
    expect(other.seen).toHaveLength(0);
    expect(home.seen[0]!.headers['x-api-key']).toBe('api-key-secret-4f2');
  });

  it('with secret headers, follows a same-origin redirect keeping method, body and headers (307), and turns a 303 into a GET', async () => {
    const res = await client.request(request(`${home.url}/local`, { method: 'POST', headers: { ...secret, 'content-type': 'application/json' }, body: '{"a":1}', redirects: 'same-origin' }));
    expect(res).toMatchObject({ status: 200, body: '{"where":"home"}' });
    expect(home.seen.map((s) => [s.method, s.url, s.headers['x-api-key'], s.headers['idempotency-key'], s.body]))
      .toEqual([['POST', '/local', 'api-key-secret-4f2', 'r1.s:1', '{"a":1}'], ['POST', '/landing', 'api-key-secret-4f2', 'r1.s:1', '{"a":1}']]);
    home.seen.length = 0;
    await client.request(request(`${home.url}/see-other`, { method: 'POST', headers: { ...secret, 'content-type': 'application/json' }, body: '{"a":1}', redirects: 'same-origin' }));
    expect(home.seen.map((s) => [s.method, s.url, s.headers['content-type'], s.body])).toEqual([['POST', '/see-other', 'application/json', '{"a":1}'], ['GET', '/landing', undefined, '']]);
  });

  it('a redirect loop ends after a bounded number of hops', async () => {
    const err = await failure(client.request(request(`${home.url}/loop`, { headers: secret, redirects: 'same-origin' })));
    expect(err.reason).toBe('network');
    expect(home.seen.length).toBeLessThanOrEqual(21);
  });

  it('without secret headers, follows a redirect to another origin as before', async () => {
    const res = await client.request(request(`${home.url}/away`));
    expect(res).toMatchObject({ status: 200, body: '{"where":"other"}' });
    expect(other.seen.map((s) => s.url)).toEqual(['/landing?token=query-secret-81c']);
  });

  it('following to another origin, drops Authorization and Cookie (as fetch does) and keeps the other headers', async () => {
    await client.request(request(`${home.url}/away`, { headers: { Authorization: 'Bearer b-1', Cookie: 'c=1', 'X-Trace': 't-1' } }));
    expect(home.seen[0]!.headers).toMatchObject({ authorization: 'Bearer b-1', cookie: 'c=1', 'x-trace': 't-1' });
    expect(other.seen[0]!.headers).toMatchObject({ 'x-trace': 't-1' });
    expect(other.seen[0]!.headers).not.toHaveProperty('authorization');
    expect(other.seen[0]!.headers).not.toHaveProperty('cookie');
  });
});

describe('NodeHttpClient: on the wire', () => {
  let far: Awaited<ReturnType<typeof serve>>;
  const connections = new Set<Socket>();
  beforeAll(async () => {
    far = await serve((req, res) => {
      const path = req.url!.split('?')[0]!;
      const text = '{"coded":"' + 'é'.repeat(600) + '"}';
      const coded: Record<string, Buffer> = { '/gzip': gzipSync(text), '/deflate': deflateSync(text), '/br': brotliCompressSync(Buffer.from(text)) };
      if (coded[path]) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': path.slice(1) });
        res.end(coded[path]);
      } else if (path === '/bomb') {
        // 4 MiB of zeros in a few KB: the cap counts the decoded bytes.
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.alloc(4 * MIB)));
      } else if (path === '/stall') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        res.write('half');
      } else if (path === '/cut') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
        res.write('half', () => res.socket?.destroy());
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }
    });
    far.server.on('connection', (socket: Socket) => connections.add(socket));
  });
  afterAll(() => far.close());
  beforeEach(() => {
    far.seen.length = 0;
  });

  it('sends accept */* and a text/plain type for a body without one, as fetch did; a given type is sent as given', async () => {
    await client.request(request(`${far.url}/plain`, { method: 'POST', body: 'hello' }));
    await client.request(request(`${far.url}/plain`, { method: 'PUT', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: '{}' }));
    expect(far.seen.map((s) => [s.method, s.headers.accept, s.headers['content-type'], s.headers['content-length'], s.body])).toEqual([
      ['POST', '*/*', 'text/plain;charset=UTF-8', '5', 'hello'],
      ['PUT', 'application/json', 'application/json', '2', '{}'],
    ]);
  });

  it('decodes a gzip, deflate or brotli answer to its text, and caps the decoded bytes', async () => {
    for (const path of ['/gzip', '/deflate', '/br']) {
      const res = await client.request(request(`${far.url}${path}`));
      expect({ path, body: res.body }).toEqual({ path, body: '{"coded":"' + 'é'.repeat(600) + '"}' });
    }
    const err = await failure(client.request(request(`${far.url}/bomb`)));
    expect(err.reason).toBe('too_large');
  });

  it('keeps the connection for the next call', async () => {
    const before = connections.size;
    for (let i = 0; i < 5; i++) await client.request(request(`${far.url}/plain`));
    expect(connections.size - before).toBeLessThanOrEqual(1);
  });

  it('a body that stalls fails `timeout` at the bound; one cut short fails `network`', async () => {
    const started = Date.now();
    const stalled = await failure(client.request(request(`${far.url}/stall`, { timeoutMs: 300 })));
    expect(stalled).toMatchObject({ reason: 'timeout', message: 'timed out' });
    expect(Date.now() - started).toBeLessThan(5_000);
    const cut = await failure(client.request(request(`${far.url}/cut`)));
    expect(cut.reason).toBe('network');
  });

  it('a refused connection fails `network` with its code, and a server that never answers fails `timeout`', async () => {
    const held: Socket[] = [];
    const silent = createTcpServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      expect(await failure(client.request(request(`http://127.0.0.1:${port}/`, { timeoutMs: 300 })))).toMatchObject({ reason: 'timeout' });
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
    const refused = await failure(client.request(request(`http://127.0.0.1:${port}/`)));
    expect(refused).toMatchObject({ reason: 'network', message: 'network error ECONNREFUSED' });
  });

  it('refuses a scheme other than http and https as a network failure, sending nothing', async () => {
    expect(await failure(client.request(request('ftp://127.0.0.1/file')))).toMatchObject({ reason: 'network' });
  });
});
