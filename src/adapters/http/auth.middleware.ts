import type { RequestHandler } from 'express';
import type { Authenticate } from '../../application/auth/authenticate.use-case';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Requires a valid token when authentication is on: `Authorization: Bearer T` or `X-Service-Token: T`
 * (a proxy may replace Authorization), either one sufficing. A refusal is
 * `401 { "error": "unauthorized" }` with `WWW-Authenticate: Bearer`.
 */
export function requireAuth(auth: Authenticate): RequestHandler {
  return async (req, res, next) => {
    if (!auth.enabled) return next();
    const bearer = BEARER.exec(req.get('authorization') ?? '')?.[1];
    const service = req.get('x-service-token')?.trim();
    if (await auth.execute([bearer, service])) return next();
    res.set('WWW-Authenticate', 'Bearer').status(401).json({ error: 'unauthorized' });
  };
}
