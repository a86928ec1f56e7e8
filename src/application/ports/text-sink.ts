/** Where a streamed export goes (a file, an HTTP response): text written in order, with back-pressure. */
export interface TextSink {
  /** Resolves when the sink can take more. */
  write(chunk: string): Promise<void>;
}
