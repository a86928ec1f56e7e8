/**
 * Test support: the real `chainflow start` (or `worker`) as a child process, killable with any signal, and a local
 * HTTP server standing in for the services http_call steps call.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN } from './cli';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ProcessServer {
  readonly baseUrl: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far (a start that failed, a crash). */
  stderr(): string;
  /** Its log so far: the JSON lines it wrote to stdout (request, lifecycle and operator lines). */
  log(): string;
  /** Sends `signal` and waits for the process to end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns `chainflow start --port P` in `cwd` and waits until `/live` answers (at most 20 s). */
export async function startProcessServer(cwd: string, env: Record<string, string>, args: readonly string[] = [], port?: number): Promise<ProcessServer> {
  port ??= await freePort();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, CHAINFLOW_LOG_LEVEL: 'warn', ...env, NO_COLOR: '1' };
  delete childEnv.CHAINFLOW_CONFIG;
  const child = spawn(process.execPath, [BIN, 'start', '--port', String(port), ...args], { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let log = '';
  child.stderr!.on('data', (d: Buffer) => void (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => void (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`chainflow start exited ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${baseUrl}/live`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`chainflow start did not answer /live: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    baseUrl, child, stderr: () => stderr, log: () => log,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What a stub route answers: a status and JSON body (or `raw` text as is), extra headers, after an optional delay (ms). */
export interface StubAnswer {
  readonly status?: number;
  readonly body?: unknown;
  readonly raw?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayMs?: number;
}

/** A local HTTP server that records every request and answers per path from a script (the last answer repeats). */
export class StubService {
  readonly received: ReceivedRequest[] = [];
  private readonly script = new Map<string, StubAnswer[]>();
  private server: Server | undefined;
  baseUrl = '';

  on(path: string, ...answers: StubAnswer[]): this {
    this.script.set(path, answers);
    return this;
  }

  hits(path: string): ReceivedRequest[] {
    return this.received.filter((r) => r.path === path);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => void (body += d.toString()));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        this.received.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
        const answers = this.script.get(path) ?? [];
        const answer = (answers.length > 1 ? answers.shift() : answers[0]) ?? {};
        setTimeout(() => {
          res.writeHead(answer.status ?? 200, { 'content-type': answer.raw !== undefined ? 'text/plain' : 'application/json', ...answer.headers });
          res.end(answer.raw ?? JSON.stringify(answer.body ?? { ok: true }));
        }, answer.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Polls `check` every 100 ms until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `chainflow ...args` without blocking this process (so that stub services here can answer it). */
export async function chainflowAsync(args: readonly string[], cwd: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, NO_COLOR: '1', CHAINFLOW_LOG_LEVEL: 'warn' };
  delete childEnv.CHAINFLOW_CONFIG;
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => void (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => void (stderr += d.toString()));
  const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { status, stdout, stderr };
}
