/** Operational log lines (JSON lines: on standard output in `start` and `worker`, standard error in one-shot commands). Callers pass only redacted text. */
export interface Logger {
  /** Something failed that an operator should look at (a run failed or dead-lettered). */
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
}
export const Logger = Symbol('Logger');
