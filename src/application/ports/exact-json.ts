import type { Json } from '../../domain/journal/journal-event';

/**
 * Reads JSON text from outside (a webhook body, a run's input) without rounding any number (CONTRACT 8.8): a
 * number a JS number holds exactly stays a number; any other (an integer beyond 2^53) becomes its decimal text.
 */
export interface ExactJson {
  /** @throws SyntaxError when the text is not JSON. */
  parse(text: string): Json;
}
export const ExactJson = Symbol('ExactJson');
