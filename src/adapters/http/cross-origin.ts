import type { RequestHandler } from 'express';

/** Methods that change nothing; a browser may send them from anywhere. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The answer to a request a browser marks as not same-origin (CONTRACT 8.4). */
export const CROSS_ORIGIN_REFUSED = { error: 'cross-origin request refused' } as const;

/**
 * The host the browser addressed. A proxy in front may rewrite `Host` and say the original in `X-Forwarded-Host`
 * (its first entry is the client's). Trusting that header here opens nothing: a page on another site cannot add it
 * to a request without a CORS preflight, which this server never grants, and a non-browser client has no
 * operator's browser to borrow.
 */
function addressedHost(headers: Record<string, string | string[] | undefined>): string {
  const forwarded = headers['x-forwarded-host'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  const host = first || (typeof headers.host === 'string' ? headers.host : '');
  return host.toLowerCase();
}

/** The `host[:port]` of an Origin header, or undefined for `null` and anything that is not a URL with a host. */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.host === '' ? undefined : url.host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Refuses, with 403, an unsafe request that a browser marks as not same-origin, as Go's net/http
 * `CrossOriginProtection` does: `Sec-Fetch-Site` (sent by every current browser) present and neither `same-origin`
 * nor `none`; without it, an `Origin` whose host is not the host the browser addressed (`Origin: null` too). A
 * request with neither header is same-origin or not from a browser, so it passes: `curl` and the CLI need no
 * ceremony, and no Content-Type is asked of an empty body. Applied whether auth is on or off (a token kept by a
 * browser extension or a proxy would otherwise be borrowed) and before it, so the answer does not depend on one.
 */
export function crossOriginProtection(): RequestHandler {
  return (req, res, next) => {
    if (SAFE.has(req.method)) return next();
    const site = req.headers['sec-fetch-site'];
    if (typeof site === 'string' && site !== '') {
      if (site === 'same-origin' || site === 'none') return next();
      res.status(403).json(CROSS_ORIGIN_REFUSED);
      return;
    }
    const origin = req.headers.origin;
    if (origin === undefined || origin === '') return next();
    if (originHost(origin) === addressedHost(req.headers)) return next();
    res.status(403).json(CROSS_ORIGIN_REFUSED);
  };
}
