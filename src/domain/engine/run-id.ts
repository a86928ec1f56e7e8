import { randomBytes } from 'node:crypto';

/**
 * A new run id (CONTRACT 8.2): sorts by creation time and matches the id pattern. `r` + the creation time in
 * base 36 (fixed width, so that text order is time order) + 10 random hex digits.
 */
export function newRunId(nowMs: number, random: () => string = () => randomBytes(5).toString('hex')): string {
  return `r${Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0')}-${random()}`;
}
