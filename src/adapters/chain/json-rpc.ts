import * as http from 'node:http';
import * as https from 'node:https';

/**
 * Why a provider gave no usable answer: it is down or broken (`unavailable`), it asks us to slow down
 * (`rate_limited`), or it serves another chain than the network's (`chain_mismatch`: never asked again).
 */
export type FailureKind = 'unavailable' | 'rate_limited' | 'chain_mismatch';

/**
 * A provider did not give a usable answer: refused, timed out, HTTP error, malformed reply. `reason` is safe to
 * show: it is built from a fixed vocabulary, never from a library's message (those carry the URL, and provider
 * URLs carry API keys). Another provider, or the same one later, may answer.
 */
export class ProviderFailure extends Error {
  /** `servedChainId`: for `chain_mismatch`, the chain the provider does serve. */
  constructor(readonly reason: string, readonly kind: FailureKind = 'unavailable', readonly servedChainId?: string) {
    super(reason);
    this.name = 'ProviderFailure';
  }
}

/** The node answered with a JSON-RPC error object. `detail` is the node's message, already scrubbed. */
export class RpcError extends Error {
  /** `data`: the error's 0x-hex data when the node gave some (a revert's encoded reason). */
  constructor(readonly code: number | undefined, readonly detail: string, readonly data?: string) {
    super(code === undefined ? detail : `${detail} (code ${code})`);
    this.name = 'RpcError';
  }
}

/** Removes URLs, the given secrets (provider URLs, keys) and control characters from a text, and bounds its length. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 8) continue;
    out = out.split(secret).join('<redacted>');
    const bare = secret.replace(/^0x/i, '');
    if (bare !== secret && bare.length >= 8) out = out.replace(new RegExp(escapeRegExp(bare), 'gi'), '<redacted>');
  }
  out = out.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '<url>');
  // eslint-disable-next-line no-control-regex
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return out.length > 300 ? `${out.slice(0, 297)}...` : out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

/** Maps whatever the HTTP stack threw to a safe reason. Only codes and status numbers are kept. */
function classify(error: unknown): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  const e = (error ?? {}) as { name?: unknown; code?: unknown; errno?: unknown; statusCode?: unknown; type?: unknown; cause?: unknown };
  for (const code of [e.code, e.errno, (e.cause as { code?: unknown } | undefined)?.code]) {
    if (typeof code === 'string' && NETWORK_CODES[code]) return new ProviderFailure(NETWORK_CODES[code]);
    if (typeof code === 'string' && /^(CERT_|ERR_TLS|UNABLE_TO_VERIFY|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return new ProviderFailure('TLS error');
  }
  if (typeof e.statusCode === 'number') return httpFailure(e.statusCode);
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return new ProviderFailure('request aborted');
  if (e.name === 'SyntaxError' || e.type === 'invalid-json') return new ProviderFailure('invalid response (not JSON)');
  if (typeof e.code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(e.code)) return new ProviderFailure(`request failed (${e.code})`);
  return new ProviderFailure('request failed');
}

let nextId = 1;

/** An HTTP status other than 2xx: 429 asks us to slow down; anything else (5xx, 401/403 of a spent key) is this provider's trouble. */
function httpFailure(status: number): ProviderFailure {
  return new ProviderFailure(`HTTP ${status}`, status === 429 ? 'rate_limited' : 'unavailable');
}

/** Connections are kept for the next call: a TLS handshake per call would cost more than most calls. */
const AGENTS = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
/** No JSON-RPC answer chainflow asks for comes near this; a provider sending more is broken. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** One HTTP POST; its socket is destroyed when `signal` aborts (a hung request must not hold one). */
function post(url: string, body: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const request = (secure ? https : http).request(target, {
      method: 'POST', signal, agent: secure ? AGENTS.https : AGENTS.http,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) request.destroy(new ProviderFailure('response too large'));
        else chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * One JSON-RPC call over HTTP (node:http, not web3's provider: that one hides the status of a non-JSON answer, and
 * a 429 must not read like a 503), bounded by `timeoutMs`: on timeout the request is aborted (the socket does not
 * linger) and the call rejects with ProviderFailure. Resolves the `result` member; rejects with RpcError when the
 * node answered an error object, ProviderFailure for everything else.
 */
export async function rpcCall(url: string, method: string, params: readonly unknown[], timeoutMs: number, secrets: readonly string[]): Promise<unknown> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new ProviderFailure(`timed out after ${timeoutMs} ms`));
    }, Math.max(0, timeoutMs));
  });
  try {
    const request = (async () => {
      if (!/^https?:\/\//i.test(url)) throw new ProviderFailure('not an http(s) URL');
      const res = await post(url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: [...params] }), controller.signal);
      if (res.status < 200 || res.status > 299) throw httpFailure(res.status);
      return JSON.parse(res.text) as unknown;
    })();
    request.catch(() => undefined); // settles after a timeout too; nobody listens then
    const envelope = (await Promise.race([request, timedOut])) as unknown;
    if (envelope === null || typeof envelope !== 'object') throw new ProviderFailure('invalid JSON-RPC response');
    const body = envelope as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (body.error !== undefined && body.error !== null) {
      const code = typeof body.error.code === 'number' ? body.error.code : undefined;
      const message = typeof body.error.message === 'string' ? body.error.message : 'error without a message';
      const data = typeof body.error.data === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(body.error.data) ? body.error.data : undefined;
      throw new RpcError(code, scrub(message, [url, ...secrets]), data);
    }
    if (!('result' in body)) throw new ProviderFailure('invalid JSON-RPC response');
    return body.result;
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw classify(error);
  } finally {
    clearTimeout(timer);
  }
}

/** A hex (or decimal) quantity from a node, as a bigint. Throws ProviderFailure on anything else. */
export function quantity(value: unknown, what: string): bigint {
  if (typeof value === 'string' && /^0x[0-9a-f]+$/i.test(value)) return BigInt(value);
  if (typeof value === 'string' && /^[0-9]+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n) return value;
  throw new ProviderFailure(`malformed ${what}`);
}
