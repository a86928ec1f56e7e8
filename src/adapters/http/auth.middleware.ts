import type { RequestHandler } from 'express';
import { CONFIGURED_TOKEN_NAME, type Authenticate } from '../../application/auth/authenticate.use-case';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The tokens a request carries: `Authorization: Bearer T` and `X-Service-Token: T` (absent ones undefined). */
export function tokensOf(header: (name: string) => string | undefined): (string | undefined)[] {
  return [BEARER.exec(header('authorization') ?? '')?.[1], header('x-service-token')?.trim()];
}

/**
 * Requires a valid token when authentication is on: `Authorization: Bearer T` or `X-Service-Token: T`
 * (a proxy may replace Authorization), either one sufficing. A refusal is
 * `401 { "error": "unauthorized" }` with `WWW-Authenticate: Bearer`.
 */
export function requireAuth(auth: Authenticate): RequestHandler {
  return (req, res, next) => {
    if (!auth.enabled) return next();
    const candidates = tokensOf((name) => req.get(name));
    // The configured token is checked synchronously; only a named bearer needs a lookup.
    if (auth.matchesConfigured(candidates)) {
      res.locals.principal = CONFIGURED_TOKEN_NAME;
      return next();
    }
    auth.identify(candidates).then((name) => {
      if (name === null) {
        res.set('WWW-Authenticate', 'Bearer').status(401).json({ error: 'unauthorized' });
        return;
      }
      res.locals.principal = name;
      next();
    }, next);
  };
}
