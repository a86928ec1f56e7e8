import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A fault-injecting JSON-RPC proxy for tests and benches: it listens on 127.0.0.1 on a free port, forwards every
 * request to a real node (anvil), counts requests per method, and lets a policy answer in the node's place the way
 * real providers misbehave: an HTTP status (503, 429), a JSON-RPC error (-32005 rate limited), a stale or null result,
 * a slow answer, a connection cut. The policy sees each single request; a batch passes through untouched.
 */

/** One JSON-RPC request as the proxy sees it. */
export interface RpcRequest {
  readonly method: string;
  readonly params: readonly unknown[];
  readonly id: unknown;
}

/** What the proxy does with one request instead of (or before) forwarding it. */
export type Fault =
  /** Answer with this HTTP status and a short text body (503, 429, 500...). */
  | { readonly status: number }
  /** Answer with a JSON-RPC error object, HTTP 200 (e.g. { code: -32005, message: 'rate limited' }). */
  | { readonly rpcError: { readonly code: number; readonly message: string; readonly data?: string } }
  /** Answer with this result without asking the node (a stale block number, a null receipt). */
  | { readonly result: unknown }
  /** Forward after this many ms (a slow provider; beyond the client's timeout it is a timeout). */
  | { readonly delayMs: number }
  /** Destroy the connection without an answer. */
  | { readonly cut: true };

/** Decides per request: undefined forwards it as it is. `n` counts requests of every method, from 1. */
export type FaultPolicy = (request: RpcRequest, n: number) => Fault | undefined | Promise<Fault | undefined>;

export interface RpcProxy {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Requests received (faulted ones included), per method. */
  readonly counts: ReadonlyMap<string, number>;
  /** Requests received of every method (or of the given methods). */
  total(methods?: readonly string[]): number;
  /** Faults answered, per method. */
  readonly faults: ReadonlyMap<string, number>;
  /** Zeroes the counters. */
  reset(): void;
  /** Replaces the policy (undefined: forward everything). */
  setPolicy(policy: FaultPolicy | undefined): void;
  stop(): Promise<void>;
}

export async function startRpcProxy(target: string, policy?: FaultPolicy): Promise<RpcProxy> {
  const counts = new Map<string, number>();
  const faults = new Map<string, number>();
  let current = policy;
  let n = 0;
  const sockets = new Set<Socket>();
  const bump = (map: Map<string, number>, key: string): void => {
    map.set(key, (map.get(key) ?? 0) + 1);
  };

  const forward = async (body: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) });
    return { status: res.status, text: await res.text() };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      res.writeHead(400).end('not JSON');
      return;
    }
    if (Array.isArray(parsed) || !parsed || typeof parsed !== 'object') {
      const answer = await forward(body);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
      return;
    }
    const request = parsed as { method?: unknown; params?: unknown; id?: unknown };
    const method = typeof request.method === 'string' ? request.method : '';
    bump(counts, method);
    const fault = current ? await current({ method, params: Array.isArray(request.params) ? request.params : [], id: request.id }, ++n) : undefined;
    if (fault) bump(faults, method);
    if (fault && 'cut' in fault) {
      req.socket.destroy();
      return;
    }
    if (fault && 'status' in fault) {
      res.writeHead(fault.status, { 'content-type': 'text/plain' }).end(fault.status === 429 ? 'Too Many Requests' : 'Service Unavailable');
      return;
    }
    if (fault && 'rpcError' in fault) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, error: fault.rpcError }));
      return;
    }
    if (fault && 'result' in fault) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, result: fault.result }));
      return;
    }
    if (fault && 'delayMs' in fault) await new Promise((done) => setTimeout(done, fault.delayMs));
    const answer = await forward(body);
    if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(502).end('bad gateway');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    faults,
    total: (methods) => [...counts].filter(([m]) => !methods || methods.includes(m)).reduce((sum, [, c]) => sum + c, 0),
    reset: () => {
      counts.clear();
      faults.clear();
    },
    setPolicy: (next) => {
      current = next;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/**
 * A provider that fails now and then, repeatably: each request is answered 503 with probability `http503` and a
 * JSON-RPC rate limit (-32005) with probability `rateLimited`, drawn from a seeded generator (mulberry32), so a
 * failing run can be replayed. `only` limits the faults to some methods.
 */
export function flakyProvider(options: { http503?: number; rateLimited?: number; seed?: number; only?: readonly string[] }): FaultPolicy {
  let state = (options.seed ?? 1) >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (request) => {
    if (options.only && !options.only.includes(request.method)) return undefined;
    const draw = random();
    if (draw < (options.http503 ?? 0)) return { status: 503 };
    if (draw < (options.http503 ?? 0) + (options.rateLimited ?? 0)) return { rpcError: { code: -32005, message: 'rate limited: too many requests' } };
    return undefined;
  };
}

/**
 * A provider that refuses eth_getLogs over more than `maxBlocks` blocks, in the words of a real one (Alchemy's free
 * tier, as Ponder's getLogsRetryHelper quotes it; -32602). A range given by tag (`latest`) is let through: its width
 * is unknown here. Other methods pass.
 */
export function refuseWideLogRanges(maxBlocks: number): FaultPolicy {
  return (request) => {
    if (request.method !== 'eth_getLogs') return undefined;
    const filter = (request.params[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown };
    if (typeof filter.fromBlock !== 'string' || typeof filter.toBlock !== 'string' || !/^0x/.test(filter.fromBlock) || !/^0x/.test(filter.toBlock)) return undefined;
    const from = BigInt(filter.fromBlock);
    const to = BigInt(filter.toBlock);
    if (to - from + 1n <= BigInt(maxBlocks)) return undefined;
    const end = from + BigInt(maxBlocks) - 1n;
    return {
      rpcError: {
        code: -32602,
        message: `Log response size exceeded. You can make eth_getLogs requests with up to a ${maxBlocks} block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x${from.toString(16)}, 0x${end.toString(16)}]`,
      },
    };
  };
}
