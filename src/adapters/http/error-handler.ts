import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ChainflowError, type ErrorCode } from '../../domain/errors';

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  invalid_config: 500,
  journal_rejected: 400,
  unauthorized: 401,
  budget_exceeded: 409,
  conflict: 409,
  storage_failed: 503,
  secret_missing: 503,
};

/** Failures on the server's side: logged (one line), answered with a generic word, not the details. */
const SERVER_SIDE: Partial<Record<ErrorCode, string>> = {
  storage_failed: 'storage unavailable',
  secret_missing: 'not configured',
};

/** Unknown routes under /api answer JSON, not Express's HTML. */
export const apiNotFound: RequestHandler = (_req, res) => {
  res.status(404).json({ error: 'not found' });
};

/**
 * Maps typed errors to HTTP once. Malformed requests that Express itself rejects (bad URL encoding, bad
 * JSON) are 400s; anything unexpected is a 500 with a generic body, never a stack trace.
 */
export function errorHandler(log: (message: string, err: unknown) => void): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    if (err instanceof ChainflowError) {
      const generic = SERVER_SIDE[err.code];
      if (generic) log('request failed', err);
      res.status(STATUS[err.code]).json({ error: generic ?? err.message });
      return;
    }
    const status = typeof err?.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 500) log('request failed', err);
    res.status(status).json({ error: status === 500 ? 'internal error' : 'malformed request' });
  };
}
