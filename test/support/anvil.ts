import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { resolve } from 'node:path';

/**
 * A real anvil node (foundry) for tests: `startAnvil()` in beforeAll, `stop()` in afterAll. It listens on
 * 127.0.0.1 on a free port, automines, and funds the ten well-known dev accounts of the mnemonic
 * "test test ... junk" with 10 000 ether each. Every wait is bounded.
 */

export interface DevAccount {
  readonly address: string;
  readonly privateKey: string;
}

export const ANVIL_CHAIN_ID = 31337;
export const DEV_BALANCE_WEI = 10_000n * 10n ** 18n;

/** anvil's default accounts (mnemonic "test test test test test test test test test test test junk"). */
export const ANVIL_ACCOUNTS: readonly DevAccount[] = [
  { address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' },
  { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' },
  { address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a' },
  { address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6' },
  { address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a' },
  { address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc', privateKey: '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba' },
  { address: '0x976EA74026E726554dB657fA54763abd0C3a0aa9', privateKey: '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e' },
  { address: '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955', privateKey: '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356' },
  { address: '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f', privateKey: '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97' },
  { address: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720', privateKey: '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6' },
];

/** Code that reverts whatever it is called with: PUSH1 0 PUSH1 0 REVERT. */
export const REVERT_CODE = '0x60006000fd';
/** Code that returns the uint256 42 (PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN). */
export const ANSWER_CODE = '0x602a60005260206000f3';
/**
 * Code that reverts only when run with a gas price: GASPRICE ISZERO PUSH1 9 JUMPI PUSH1 0 PUSH1 0 REVERT JUMPDEST STOP.
 * A simulation (eth_call / eth_estimateGas without a price) passes; the mined transaction reverts.
 */
export const REVERT_ON_CHAIN_CODE = '0x3a15600957600080fd5b00';

export interface Anvil {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly chainId: number;
  readonly accounts: readonly DevAccount[];
  /** One JSON-RPC call (5 s bound); rejects on a JSON-RPC error. */
  rpc<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  /** Installs runtime code at an address (`anvil_setCode`), e.g. REVERT_CODE. */
  setCode(address: string, code: string): Promise<void>;
  setBalance(address: string, wei: bigint): Promise<void>;
  balance(address: string): Promise<bigint>;
  /** Kills the node (SIGTERM, then SIGKILL after 3 s) and waits until it is gone. Idempotent. */
  stop(): Promise<void>;
}

export interface StartAnvilOptions {
  /** Extra anvil arguments, e.g. ['--hardfork', 'berlin']. */
  readonly args?: readonly string[];
  /** Bound of the start-up wait, ms (default 20 000). */
  readonly startTimeoutMs?: number;
}

/**
 * The native binary of @foundry-rs/anvil when it can be found, else the npm wrapper node_modules/.bin/anvil.
 * The wrapper is a node process that spawns the binary: killed, it leaves the binary to be reaped by init, which
 * in some containers takes seconds; a direct child is reaped by node at once.
 */
function anvilBinary(): string {
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch];
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    if (arch) return require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${exe}`);
  } catch {
    // not installed for this platform: the wrapper finds what it needs
  }
  return resolve(__dirname, '../../node_modules/.bin/anvil');
}

export async function startAnvil(options: StartAnvilOptions = {}): Promise<Anvil> {
  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  let lastError: unknown;
  // A free port can be taken between the probe and anvil's bind: a few attempts.
  for (let attempt = 0; attempt < 3 && Date.now() < deadline; attempt++) {
    try {
      return await startOnce(await freePort(), options.args ?? [], deadline);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error('anvil did not start');
}

async function startOnce(port: number, args: readonly string[], deadline: number): Promise<Anvil> {
  // Its own process group: the npm wrapper (bin.mjs) spawns the native binary, and stop() kills both.
  const child = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', String(port), '--silent', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString();
  });
  let exited = child.exitCode !== null || child.signalCode !== null;
  const exit = new Promise<void>((done) => child.once('exit', () => {
    exited = true;
    done();
  }));
  const exitedWithin = async (ms: number): Promise<boolean> => {
    if (exited) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((done) => { timer = setTimeout(() => done(false), ms); });
    const result = await Promise.race([exit.then(() => true as const), late]);
    clearTimeout(timer);
    return result;
  };
  const killOnExit = (): void => killGroup(child, 'SIGKILL');
  process.once('exit', killOnExit);

  const url = `http://127.0.0.1:${port}`;
  const rpc = async <T>(method: string, params: readonly unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(5000),
    });
    const body = (await response.json()) as { result?: T; error?: { message?: string } };
    if (body.error) throw new Error(`anvil ${method}: ${body.error.message ?? 'error'}`);
    return body.result as T;
  };

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      process.removeListener('exit', killOnExit);
      killGroup(child, 'SIGTERM');
      if (!(await exitedWithin(3000))) {
        killGroup(child, 'SIGKILL');
        await exitedWithin(2000);
      }
    })();
    return stopped;
  };

  try {
    for (;;) {
      if (exited) throw new Error(`anvil exited during start-up: ${stderr.trim() || 'no output'}`);
      if (Date.now() > deadline) throw new Error('anvil did not answer eth_chainId in time');
      const chainId = await rpc<string>('eth_chainId').catch(() => undefined);
      if (chainId !== undefined) {
        if (Number(chainId) !== ANVIL_CHAIN_ID && !args.includes('--chain-id')) throw new Error(`anvil reports chain ${chainId}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    const accounts = await rpc<string[]>('eth_accounts');
    if (accounts[0]?.toLowerCase() !== ANVIL_ACCOUNTS[0]!.address.toLowerCase()) throw new Error('anvil dev accounts are not the well-known ones');
    return {
      url,
      port,
      chainId: Number(await rpc<string>('eth_chainId')),
      accounts: ANVIL_ACCOUNTS,
      rpc,
      setCode: async (address, code) => {
        await rpc('anvil_setCode', [address, code]);
      },
      setBalance: async (address, wei) => {
        await rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);
      },
      balance: async (address) => BigInt(await rpc<string>('eth_getBalance', [address, 'latest'])),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** A TCP port free right now on 127.0.0.1 (listen on port 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? done(port) : fail(new Error('no free port'))));
    });
  });
}

/** A provider URL nobody listens on (connection refused). `path` lets a test put a fake API key in it. */
export async function refusingUrl(path = '/v3/REFUSED-SECRET-KEY'): Promise<string> {
  return `http://127.0.0.1:${await freePort()}${path}`;
}

export interface SilentServer {
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Connections still open (a client that gave up closes its side). */
  openConnections(): number;
  close(): Promise<void>;
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers a byte: a provider that hangs. */
export function startSilentServer(path = '/v3/HANGING-SECRET-KEY'): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume(); // reads (and drops) the request, so the client's hang-up is seen
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      done({
        url: `http://127.0.0.1:${port}${path}`,
        connections: () => accepted,
        openConnections: () => sockets.size,
        close: () => new Promise<void>((closed) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => closed());
        }),
      });
    });
  });
}

// ---- a scripted JSON-RPC node (or a faulty proxy in front of anvil) ----

export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** What the stub does with one JSON-RPC request: answer a result, an error object, or a raw HTTP reply. */
export type StubReply =
  | { readonly result: unknown }
  | { readonly error: { readonly code: number; readonly message: string } }
  | { readonly http: number; readonly body: string }
  /** Relay to `upstream` (a real node) and hand its answer back. */
  | { readonly forward: true }
  /** Relay to `upstream`, then answer HTTP 502 as if the reply was lost on the way back. */
  | { readonly forwardThenFail: true };

export interface RpcStub {
  readonly url: string;
  readonly calls: RpcCall[];
  close(): Promise<void>;
}

/**
 * A scripted JSON-RPC node over HTTP on 127.0.0.1: `reply` decides each answer from the method and params.
 * `upstream` is a real node for `forward` replies. The URL carries a made-up API key.
 */
export function startRpcStub(reply: (call: RpcCall) => StubReply, upstream?: string): Promise<RpcStub> {
  const calls: RpcCall[] = [];
  let url = '';
  const server: Server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const payload = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string; params?: unknown[] };
        const call = { method: payload.method, params: payload.params ?? [] };
        calls.push(call);
        const answer = reply(call);
        const send = (status: number, body: string): void => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(body);
        };
        if ('http' in answer) return send(answer.http, answer.body.replace('$URL', url));
        if ('result' in answer) return send(200, JSON.stringify({ jsonrpc: '2.0', id: payload.id, result: answer.result }));
        if ('error' in answer) {
          return send(200, JSON.stringify({ jsonrpc: '2.0', id: payload.id, error: { ...answer.error, message: answer.error.message.replace('$URL', url) } }));
        }
        const upstreamResponse = await fetch(upstream!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
        const text = await upstreamResponse.text();
        if ('forwardThenFail' in answer) return send(502, JSON.stringify({ error: `bad gateway at ${url}` }));
        return send(upstreamResponse.status, text);
      })().catch(() => {
        res.writeHead(500);
        res.end();
      });
    });
  });
  return new Promise((done) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v2/STUB-SECRET-KEY`;
      done({
        url,
        calls,
        close: () => new Promise<void>((closed) => {
          server.closeAllConnections();
          server.close(() => closed());
        }),
      });
    });
  });
}
