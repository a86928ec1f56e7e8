import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeHttpClient } from '../../src/adapters/http-client';
import { ScriptedHttpClient } from '../fakes/scripted-http-client';
import { httpClientContract, type FarEnd } from './http-client.contract';

httpClientContract('scripted fake', async () => {
  const client = new ScriptedHttpClient();
  const base = 'https://far.example';
  return {
    client,
    answer: (path, reply) => {
      client.on(`${base}${path}`, reply);
      return `${base}${path}`;
    },
    sent: (path) => client.requests.filter((r) => r.url === `${base}${path}`).map((r) => ({
      method: r.method, body: r.body ?? '', headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), v])),
    })),
    close: async () => undefined,
  };
});

httpClientContract('node http over a local server', async (): Promise<FarEnd> => {
  const replies = new Map<string, { status: number; contentType: string; body: string }>();
  const seen: Array<{ path: string; method: string; headers: Record<string, string | undefined>; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => void (body += d.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers as Record<string, string | undefined>, body });
      const reply = replies.get(req.url ?? '') ?? { status: 404, contentType: 'text/plain', body: '' };
      res.writeHead(reply.status, { 'content-type': reply.contentType });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    client: new NodeHttpClient(),
    answer: (path, reply) => {
      replies.set(path, reply);
      return `${base}${path}`;
    },
    sent: (path) => seen.filter((s) => s.path === path).map(({ method, headers, body }) => ({ method, headers, body })),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
});
