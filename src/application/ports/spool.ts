/**
 * Scratch storage for a long streamed job (the JSON export): text records appended in order, read back in that
 * order, then discarded. Memory stays bounded by a record, whatever the job's size.
 */
export interface Spool {
  /** Appends one record: text without a line break (JSON text qualifies), with back-pressure. */
  append(record: string): Promise<void>;
  /** Every record appended, in order (read after the last `append`). */
  records(): AsyncIterable<string>;
  /** Frees the storage; calling it again does nothing. */
  discard(): Promise<void>;
}

/** Opens spools. */
export interface Spools {
  open(): Promise<Spool>;
}
export const Spools = Symbol('Spools');
