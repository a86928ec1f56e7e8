import type { Logger as Pino } from 'pino';
import type { Logger } from '../application/ports/logger';

/**
 * The Logger port on pino: JSON lines, level from CHAINFLOW_LOG_LEVEL. A one-shot command's lines go to standard
 * error (its standard output is its result: a table, `--json`); a long-lived process gives its processLog() so that
 * its operator lines and request lines are one stream. pino is loaded at the first line logged: most commands log
 * nothing, and loading it costs a cold start ~7 ms.
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

// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadPino = (): typeof import('pino') => require('pino') as typeof import('pino');

/** Level from $CHAINFLOW_LOG_LEVEL (info); no pid/hostname (the supervisor knows them); credential headers censored. */
function options(): import('pino').LoggerOptions {
  return {
    level: process.env.CHAINFLOW_LOG_LEVEL ?? 'info',
    base: undefined,
    // Request lines never carry headers; should anything ever log a request, its credentials are censored.
    redact: { paths: ['req.headers.authorization', 'req.headers["x-service-token"]', 'headers.authorization', 'headers["x-service-token"]'], censor: '<redacted>' },
  };
}

function stderrLogger(): Pino {
  const pino = loadPino();
  return pino.pino(options(), pino.destination(2));
}

/**
 * The one log of a long-lived process (`chainflow start`, `chainflow worker`): JSON lines on standard output, as
 * pino writes by default and as process supervisors and log shippers read it. Request lines, lifecycle lines and the
 * operator lines of CONTRACT 11 all go here, in the order they happen (docs/decisions.md).
 */
export function processLog(): Pino {
  const pino = loadPino();
  return pino.pino(options(), pino.destination(1));
}
