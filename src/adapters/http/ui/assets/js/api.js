// The JSON API client (SPEC Authentication 7): the token and the header that carries it live in this tab's
// session storage; a 401 forgets them and asks for a login; a login that fails with `Authorization: Bearer`
// is tried again with `X-Service-Token` (a proxy may strip Authorization), and the header that worked is kept.
// The token is never rendered nor logged.

const TOKEN_KEY = 'chainflow.token';
const HEADER_KEY = 'chainflow.token-header';

/** An answer other than 2xx; `message` is the API's own `error` text. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A 401: the login card is showing; whoever called has nothing to render. */
export class AuthNeeded extends Error {}

/** Session storage, or this page's memory where storage is refused. */
const memory = new Map();
const session = {
  get(k) { try { return sessionStorage.getItem(k); } catch { return memory.has(k) ? memory.get(k) : null; } },
  set(k, v) { try { sessionStorage.setItem(k, v); } catch { memory.set(k, v); } },
  remove(k) { memory.delete(k); try { sessionStorage.removeItem(k); } catch { /* nothing stored there */ } },
};

export const store = {
  get token() { return session.get(TOKEN_KEY); },
  get header() { return session.get(HEADER_KEY) === 'x-service-token' ? 'x-service-token' : 'authorization'; },
  save(token, header) { session.set(TOKEN_KEY, token); session.set(HEADER_KEY, header); },
  clear() { session.remove(TOKEN_KEY); session.remove(HEADER_KEY); },
};

function authHeaders(token, header) {
  if (!token) return {};
  return header === 'x-service-token' ? { 'X-Service-Token': token } : { Authorization: 'Bearer ' + token };
}

/** Called on a 401 with why to show on the login card (the login module sets it). */
let onAuthNeeded = () => undefined;
export function whenAuthNeeded(handler) {
  onAuthNeeded = handler;
}

/** The read the login tries the token on: the one that was refused, or any cheap one. */
let pendingPath = null;

async function call(method, path, body, signal) {
  const headers = authHeaders(store.token, store.header);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method, headers, signal, cache: 'no-store', credentials: 'omit', body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 401) {
    const hadToken = !!store.token;
    store.clear();
    pendingPath = method === 'GET' ? path : null;
    onAuthNeeded(hadToken ? 'Your token was refused (expired or revoked). Sign in again.' : 'This server requires an API token.');
    throw new AuthNeeded('unauthorized');
  }
  let parsed = null;
  try { parsed = await res.json(); } catch { parsed = null; }
  if (!res.ok) throw new ApiError(res.status, parsed && typeof parsed.error === 'string' ? parsed.error : 'HTTP ' + res.status);
  return parsed;
}

/** GET a JSON resource. */
export const api = (path, signal) => call('GET', path, undefined, signal);

/** POST a JSON body (an engine command); resolves to the API's answer. */
export const post = (path, body) => call('POST', path, body ?? {}, undefined);

/**
 * Tries `token` on the call that was refused: first as `Authorization: Bearer`, and when that is refused despite
 * the token, the same call with `X-Service-Token`; keeps the header that worked. Resolves to a problem to show,
 * or null when signed in.
 */
export async function login(token) {
  const probe = pendingPath || '/api/history/workflows?limit=1';
  let worked = null;
  for (const header of ['authorization', 'x-service-token']) {
    let res;
    try {
      res = await fetch(probe, { headers: authHeaders(token, header), cache: 'no-store', credentials: 'omit' });
    } catch {
      return 'The token could not be sent (it may contain characters a header cannot carry).';
    }
    if (res.status !== 401) { worked = header; break; }
  }
  if (!worked) return 'That token was refused.';
  store.save(token, worked);
  pendingPath = null;
  return null;
}
