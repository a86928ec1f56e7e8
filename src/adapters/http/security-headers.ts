import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { RequestHandler } from 'express';

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The Content-Security-Policy of the embedded page: only its own inline script and style (by hash), API
 * calls to its own origin, nothing from any other origin; plus the usual hardening headers, on every response.
 */
export function securityHeaders(pagePath: string): RequestHandler {
  const page = existsSync(pagePath) ? readFileSync(pagePath, 'utf8') : '';
  const scripts = [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => sha256(m[1]!));
  const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => sha256(m[1]!));
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.join(' ') || "'none'"}`,
    `style-src ${styles.join(' ') || "'none'"}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
    next();
  };
}
