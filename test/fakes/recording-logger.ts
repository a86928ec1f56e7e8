import type { Logger } from '../../src/application/ports/logger';

/** One line a RecordingLogger kept. */
export interface LoggedLine {
  readonly level: 'error' | 'warn' | 'info';
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** The Logger port kept in memory, so that tests read the lines an event produced. */
export class RecordingLogger implements Logger {
  readonly lines: LoggedLine[] = [];

  error(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.lines.push({ level: 'error', message, fields });
  }

  warn(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.lines.push({ level: 'warn', message, fields });
  }

  info(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.lines.push({ level: 'info', message, fields });
  }

  /** The lines whose message is `message`. */
  named(message: string): LoggedLine[] {
    return this.lines.filter((l) => l.message === message);
  }
}
