import { isSafeNumber, parse } from 'lossless-json';
import type { ExactJson } from '../../application/ports/exact-json';
import type { Json } from '../../domain/journal/journal-event';

/**
 * A JSON number as the payload keeps it: a number when a JS number holds it exactly, else its text as written
 * (`1152921504606846977` stays those digits; `JSON.parse` would make it ...976 and a payout would pay that).
 * A string, not a bigint: the payload is journaled, shown and templated as JSON, and CEL's `int()`/`u256()` take digits.
 */
const exactNumber = (text: string): number | string => (isSafeNumber(text) ? Number(text) : text);

/** JSON.parse, but exact for every number (CONTRACT 8.8). @throws SyntaxError */
export function parseExactJson(text: string): Json {
  return parse(text, null, exactNumber) as Json;
}

/** The ExactJson port over lossless-json. */
export class LosslessJson implements ExactJson {
  parse(text: string): Json {
    return parseExactJson(text);
  }
}
