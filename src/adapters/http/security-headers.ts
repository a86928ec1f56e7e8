import type { RequestHandler } from 'express';

/**
 * The Content-Security-Policy of the embedded page: scripts and styles only from this origin (its own files,
 * never inline, never from another origin), API calls to this origin, nothing else; Trusted Types required, so
 * that no string can ever reach an HTML or script sink (the page has none; this is the second wall). Plus the
 * usual hardening headers, on every response.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
    next();
  };
}
