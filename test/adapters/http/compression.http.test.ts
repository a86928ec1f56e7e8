/**
 * Compression (CONTRACT 11): responses and assets of 1 KB or more are compressed with gzip or brotli when the client
 * accepts it, decode to the same bytes as the plain answer, and small ones go as they are. Real requests through
 * node:http, which (unlike fetch) shows the bytes on the wire.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import { encodedStream } from '../../../src/adapters/http/compressed-stream';
import { WriteDemoJournal } from '../../../src/application/journal/demo-journal.use-case';
import { negotiateCoding } from '../../../src/adapters/http/compression';
import { startTestServer, type TestServer } from '../../support/server';

interface Wire { status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }

function wire(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (w: Wire): Buffer => {
  const coding = w.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(w.bytes);
  if (coding === 'gzip') return gunzipSync(w.bytes);
  return w.bytes;
};

describe('compression', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    await srv.root.container.get(WriteDemoJournal).execute();
  }, 30_000);
  afterAll(async () => {
    await srv?.close();
  });

  it('compresses the runs page with br and gzip, each decoding to the plain JSON, the plain one in one Content-Length body', async () => {
    const path = '/api/history/runs?limit=50';
    const plain = await wire(srv.baseUrl, path);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(plain.bytes.length);
    expect(plain.bytes.length).toBeGreaterThan(1024);
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    const items = (JSON.parse(plain.bytes.toString('utf8')) as { items: unknown[] }).items;
    expect(items.length).toBeGreaterThan(0);
    for (const coding of ['br', 'gzip']) {
      const packed = await wire(srv.baseUrl, path, { 'accept-encoding': coding });
      expect({ coding, status: packed.status, encoding: packed.headers['content-encoding'] }).toEqual({ coding, status: 200, encoding: coding });
      expect(Number(packed.headers['content-length'])).toBe(packed.bytes.length);
      expect(packed.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(decode(packed).equals(plain.bytes)).toBe(true);
      // The Lighthouse figure of issue #30: at most 40% of the plain size.
      expect(packed.bytes.length).toBeLessThanOrEqual(plain.bytes.length * 0.4);
    }
  });

  it('answers pages in gzip when both are accepted (the cheaper on the request path), assets in brotli, and honours q-values', async () => {
    const path = '/api/history/runs?limit=50';
    expect((await wire(srv.baseUrl, path, { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).toBe('gzip');
    expect((await wire(srv.baseUrl, path, { 'accept-encoding': 'gzip;q=0.5, br' })).headers['content-encoding']).toBe('br');
    expect((await wire(srv.baseUrl, path, { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await wire(srv.baseUrl, path, { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    expect((await wire(srv.baseUrl, path, { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
    expect(negotiateCoding('*')).toBe('gzip');
    expect(negotiateCoding('gzip, br', 'br')).toBe('br');
    expect(negotiateCoding('gzip;q=1, br;q=0.9', 'br')).toBe('gzip');
    expect(negotiateCoding('x-gzip')).toBe('gzip');
    expect(negotiateCoding(undefined)).toBeUndefined();
  });

  it('leaves responses under 1 KB as they are', async () => {
    const live = await wire(srv.baseUrl, '/live', { 'accept-encoding': 'br, gzip' });
    expect(live.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(live.bytes.toString('utf8'))).toEqual({ status: 'ok' });
    const bad = await wire(srv.baseUrl, '/api/history/runs?bogus=1', { 'accept-encoding': 'br, gzip' });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-encoding']).toBeUndefined();
  });

  it('compresses what res.json and res.send write (the OpenAPI document, the page shell) too', async () => {
    for (const path of ['/api/openapi.json', '/']) {
      const plain = await wire(srv.baseUrl, path);
      const packed = await wire(srv.baseUrl, path, { 'accept-encoding': 'gzip' });
      expect({ path, encoding: packed.headers['content-encoding'] }).toEqual({ path, encoding: 'gzip' });
      expect(packed.headers['content-type']).toBe(plain.headers['content-type']);
      expect(decode(packed).equals(plain.bytes)).toBe(true);
    }
  });

  it('serves the page\'s assets compressed under their versioned path, identical once decoded, with the cache headers of the plain file', async () => {
    const shell = (await wire(srv.baseUrl, '/')).bytes.toString('utf8');
    const css = /href="(\/assets\/[0-9a-f]+\/style\.css)"/.exec(shell)?.[1];
    expect(css).toBeDefined();
    const plain = await wire(srv.baseUrl, css!);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const coding of ['br', 'gzip']) {
      const packed = await wire(srv.baseUrl, css!, { 'accept-encoding': coding });
      expect(packed.headers['content-encoding']).toBe(coding);
      expect(packed.headers['content-type']).toBe(plain.headers['content-type']);
      expect(packed.headers['cache-control']).toBe(plain.headers['cache-control']);
      expect(packed.headers.vary).toMatch(/Accept-Encoding/);
      expect(decode(packed).equals(plain.bytes)).toBe(true);
      expect(packed.bytes.length).toBeLessThan(plain.bytes.length * 0.4);
      // A second request is answered from the same compressed bytes, and revalidates by its ETag.
      const again = await wire(srv.baseUrl, css!, { 'accept-encoding': coding, 'if-none-match': String(packed.headers.etag) });
      expect(again.status).toBe(304);
    }
    expect((await wire(srv.baseUrl, css!, { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).toBe('br');
    const small = /src="(\/assets\/[0-9a-f]+\/js\/theme\.js)"/.exec(shell)?.[1] ?? '/assets/js/theme.js';
    expect((await wire(srv.baseUrl, small, { 'accept-encoding': 'br' })).headers['content-encoding']).toBeUndefined();
    expect((await wire(srv.baseUrl, '/assets/nope.js', { 'accept-encoding': 'br' })).status).toBe(404);
    expect((await wire(srv.baseUrl, '/assets/..%2f..%2fapp.js', { 'accept-encoding': 'br' })).status).toBe(404);
  });

  it('compresses the streamed history export (CSV and JSON), chunked, decoding to the plain export; a short one goes as it is', async () => {
    for (const path of ['/api/history/export?format=csv', '/api/history/export?format=json']) {
      const plain = await wire(srv.baseUrl, path);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toMatch(/Accept-Encoding/);
      expect(plain.bytes.length).toBeGreaterThan(1024);
      for (const coding of ['br', 'gzip']) {
        const packed = await wire(srv.baseUrl, path, { 'accept-encoding': coding });
        expect({ path, coding, status: packed.status, encoding: packed.headers['content-encoding'] }).toEqual({ path, coding, status: 200, encoding: coding });
        expect(packed.headers['transfer-encoding']).toBe('chunked');
        expect(packed.headers['content-type']).toBe(plain.headers['content-type']);
        expect(packed.headers['content-disposition']).toBe(plain.headers['content-disposition']);
        expect(decode(packed).equals(plain.bytes)).toBe(true);
        expect(packed.bytes.length).toBeLessThan(plain.bytes.length * 0.4);
      }
    }
    const short = await wire(srv.baseUrl, '/api/history/export?format=csv&workflow=no-such-workflow', { 'accept-encoding': 'gzip' });
    expect(short.status).toBe(200);
    expect(short.bytes.length).toBeLessThan(1024);
    expect(short.headers['content-encoding']).toBeUndefined();
    expect(short.bytes.toString('utf8')).toMatch(/^run_id,/);
  });
});

describe('encodedStream (a compressed answer that still streams)', () => {
  let server: Server;
  let release: () => void = () => undefined;
  const first = 'a,b,c\n'.repeat(400);
  const second = 'd,e,f\n'.repeat(400);
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('Content-Type', 'text/csv');
      const out = encodedStream(req, res);
      out.write(first);
      // The rest waits until the client has decoded the first chunk: it must have reached it before the end.
      release = () => out.end(second);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each(['gzip', 'br'])('flushes each write through %s: the client decodes it before the answer ends', async (coding) => {
    const { port } = server.address() as AddressInfo;
    const { head, early, bytes } = await new Promise<{ head: string | undefined; early: string; bytes: Buffer }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', headers: { 'accept-encoding': coding } }, (res) => {
        const chunks: Buffer[] = [];
        let early: string | undefined;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          if (early !== undefined) return;
          const sofar = Buffer.concat(chunks);
          const text = (coding === 'br'
            ? brotliDecompressSync(sofar, { finishFlush: constants.BROTLI_OPERATION_FLUSH })
            : gunzipSync(sofar, { finishFlush: constants.Z_SYNC_FLUSH })).toString('utf8');
          if (text.length >= first.length) {
            early = text;
            release();
          }
        });
        res.on('end', () => resolve({ head: res.headers['content-encoding'] as string | undefined, early: early ?? '', bytes: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(head).toBe(coding);
    expect(early).toBe(first);
    const whole = coding === 'br' ? brotliDecompressSync(bytes) : gunzipSync(bytes);
    expect(whole.toString('utf8')).toBe(first + second);
  });
});
