import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a signature's `t` may be from now (CONTRACT 8.3). */
export const SIGNATURE_TOLERANCE_MS = 300_000;

const HEADER = /^t=(\d{1,15}),v1=([0-9a-f]{64})$/;

/** The parts of `X-Chainflow-Signature: t=<unix seconds>,v1=<hex>`, or undefined when malformed. */
export function parseSignature(header: string | undefined): { t: number; v1: string } | undefined {
  const m = HEADER.exec((header ?? '').trim());
  return m ? { t: Number(m[1]), v1: m[2]! } : undefined;
}

/** `v1` of a delivery: hex HMAC-SHA256 over `<t>.<raw body>`, keyed with the trigger's secret. */
export function signPayload(secret: string, t: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/** Why a delivery's signature is refused (for the log only: the sender is told `bad signature` whatever it is). */
export type SignatureProblem = 'malformed header' | 'stale timestamp' | 'bad signature';

/**
 * What is wrong with the header's signature of `body` with `secret` at `nowMs`, or undefined when it signs it within
 * the tolerance. The HMAC is compared in constant time; the time is checked first, so a stale replay of a genuine
 * delivery reads as stale.
 */
export function signatureProblem(header: string | undefined, body: Buffer, secret: string, nowMs: number): SignatureProblem | undefined {
  const parsed = parseSignature(header);
  if (!parsed) return 'malformed header';
  if (!secret) return 'bad signature';
  if (Math.abs(nowMs - parsed.t * 1000) > SIGNATURE_TOLERANCE_MS) return 'stale timestamp';
  const expected = Buffer.from(signPayload(secret, parsed.t, body), 'hex');
  return timingSafeEqual(expected, Buffer.from(parsed.v1, 'hex')) ? undefined : 'bad signature';
}

/** Whether the header signs `body` with `secret` and its `t` is within the tolerance of `nowMs`. Constant-time compare. */
export function verifySignature(header: string | undefined, body: Buffer, secret: string, nowMs: number): boolean {
  return signatureProblem(header, body, secret, nowMs) === undefined;
}
