import type { Logger as Pino } from 'pino';
import type { Logger } from '../application/ports/logger';

/**
 * The Logger port on pino: JSON lines (to standard error unless told otherwise), level from CHAINFLOW_LOG_LEVEL.
 * pino is loaded at the first line logged: most commands log nothing, and loading it costs a cold start ~7 ms.
 */
export class PinoLogger implements Logger {
  private instance: Pino | undefined;

  constructor(private readonly given?: Pino) {}

  error(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.logger.error(fields, message);
  }

  warn(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.logger.warn(fields, message);
  }

  info(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.logger.info(fields, message);
  }

  private get logger(): Pino {
    this.instance ??= this.given ?? stderrLogger();
    return this.instance;
  }
}

function stderrLogger(): Pino {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pino = require('pino') as typeof import('pino');
  return pino.pino({ level: process.env.CHAINFLOW_LOG_LEVEL ?? 'info', base: undefined }, pino.destination(2));
}
