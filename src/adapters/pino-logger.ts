import pino from 'pino';
import type { Logger } from '../application/ports/logger';

/** The Logger port on pino: JSON lines (to standard error unless told otherwise), level from CHAINFLOW_LOG_LEVEL. */
export class PinoLogger implements Logger {
  constructor(private readonly logger: pino.Logger = pino({ level: process.env.CHAINFLOW_LOG_LEVEL ?? 'info', base: undefined }, pino.destination(2))) {}

  warn(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.logger.warn(fields, message);
  }

  info(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.logger.info(fields, message);
  }
}
