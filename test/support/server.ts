/**
 * Test support: a real chainflow server on a real SQLite file in a temp folder.
 *
 *   const srv = await startTestServer({ config: { secrets: { api_token: { env: 'TEST_TOKEN' } } }, env: { TEST_TOKEN: 's3cret-value' } });
 *   const res = await srv.get('/api/history/runs');
 *   await srv.close();
 */
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Server } from 'node:http';
import { stringify } from 'yaml';
import { openRoot, type Root } from '../../src/bin/root';
import { startServer } from '../../src/bin/server';
import { JournalWriter } from '../../src/application/ports/journal-writer';
import type { JournalEvent } from '../../src/domain/journal/journal-event';

/** A fresh temp folder; removed by `removeTempDir`. */
export function makeTempDir(prefix = 'chainflow-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Ends what a suite against a real `chainflow start` set up, skipping what never started: the server first (killed,
 * so nothing writes while the rest goes), then the other processes in the order given, the database, the folder.
 */
export async function tearDownSuite(parts: {
  readonly server?: { kill(signal?: NodeJS.Signals): Promise<unknown> };
  readonly stops?: ReadonlyArray<{ stop(): Promise<unknown> } | undefined>;
  readonly database?: { drop(): Promise<unknown> };
  readonly dir?: string;
}): Promise<void> {
  await parts.server?.kill('SIGKILL');
  for (const part of parts.stops ?? []) await part?.stop();
  await parts.database?.drop();
  if (parts.dir) removeTempDir(parts.dir);
}

/**
 * Writes `<dir>/chainflow.yaml`: `chainflow_version: 1` plus `config` (an object rendered as YAML, or raw
 * YAML text used as is). Returns the file's path.
 */
export function writeConfig(dir: string, config: Record<string, unknown> | string = {}): string {
  const file = path.join(dir, 'chainflow.yaml');
  const text = typeof config === 'string' ? config : stringify({ chainflow_version: 1, ...config });
  fs.writeFileSync(file, text);
  return file;
}

export interface TestServerOptions {
  /** Config beside `chainflow_version: 1` (object) or the whole file (YAML text). Default: a minimal config. */
  readonly config?: Record<string, unknown> | string;
  /** The environment the config's `{ env: NAME }` references read. Only this; never the process's. */
  readonly env?: Record<string, string>;
  /**
   * A database of E2E_STORAGES (test/support/stores.ts) to put in the config's `storage.url`, dropped by `close`;
   * none: the SQLite file in the folder. Only with a config object.
   */
  readonly storage?: { readonly url: string; drop(): Promise<unknown> };
}

export interface TestServer {
  readonly baseUrl: string;
  readonly root: Root;
  readonly dir: string;
  readonly server: Server;
  /** Appends events through the journal port (the engine's way in). */
  append(events: readonly JournalEvent[]): Promise<void>;
  /** GET `path` (relative to baseUrl); the body parsed as JSON when it is JSON. */
  get(path: string): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** GET with Node's fetch; reads the whole body. */
export async function get(url: string, init: RequestInit = {}): Promise<TestResponse> {
  const res = await fetch(url, { ...init, method: 'GET' });
  const text = await res.text();
  let body: unknown;
  if ((res.headers.get('content-type') ?? '').includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** Creates the temp folder and config, opens the root (SQLite file inside the folder), starts on port 0. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = makeTempDir();
  const config = options.config ?? {};
  if (options.storage && typeof config === 'string') throw new Error('startTestServer: `storage` goes with a config object');
  const configPath = writeConfig(dir, options.storage ? { ...(config as Record<string, unknown>), storage: { url: options.storage.url } } : config);
  let root: Root | undefined;
  try {
    root = await openRoot({ cwd: dir, configPath, env: { ...(options.env ?? {}) } });
    const server = await startServer(root, { port: 0, host: '127.0.0.1' });
    const { port } = server.address() as AddressInfo;
    const baseUrl = `http://127.0.0.1:${port}`;
    const opened = root;
    return {
      baseUrl,
      root: opened,
      dir,
      server,
      append: async (events) => {
        await opened.container.get<JournalWriter>(JournalWriter).append(events);
      },
      get: (p) => get(`${baseUrl}${p}`),
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await opened.close();
        await options.storage?.drop();
        removeTempDir(dir);
      },
    };
  } catch (err) {
    await root?.close();
    await options.storage?.drop();
    removeTempDir(dir);
    throw err;
  }
}
