/**
 * Expected failures carry a stable code; each driving adapter maps the code once
 * (HTTP status in the http adapter, exit code in the cli adapter).
 */
export type ErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'invalid_config'
  | 'journal_rejected'
  | 'unauthorized'
  | 'budget_exceeded'
  | 'conflict'
  | 'storage_failed'
  | 'secret_missing';

export abstract class ChainflowError extends Error {
  abstract readonly code: ErrorCode;
}

/** Bad input from a user; `field` names the parameter, flag or path at fault. */
export class InvalidInputError extends ChainflowError {
  readonly code = 'invalid_input' as const;
  constructor(readonly field: string, readonly reason: string) {
    super(`${field}: ${reason}`);
  }
}

export class NotFoundError extends ChainflowError {
  readonly code = 'not_found' as const;
  /** `field`: the parameter, argument or flag that named it, when there is one (the CLI names it). */
  /** `hint`: what the caller may have meant, said after the reason (the CLI's id formats). */
  constructor(readonly what: string, readonly field?: string, hint?: string) {
    super(`${what} not found${hint ? `; ${hint}` : ''}`);
  }
}

/** A configuration that cannot be used; one line per problem, each naming its path. */
export class InvalidConfigError extends ChainflowError {
  readonly code = 'invalid_config' as const;
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
  }
}

/** A journal event that cannot be applied (e.g. it refers to a send that was never queued). */
export class JournalRejectedError extends ChainflowError {
  readonly code = 'journal_rejected' as const;
  /** index: position of the offending event in the appended sequence (0-based). */
  constructor(readonly index: number, readonly reason: string) {
    super(`event ${index}: ${reason}`);
  }
}

/**
 * A move an entity's lifecycle forbids: a finished run parked, resumed or finished again, a settled send
 * submitted again, an approval decided twice. The journal refuses the event that asks for it.
 */
export class InvalidTransitionError extends ChainflowError {
  readonly code = 'conflict' as const;
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** The request is valid but the state forbids it now (a paused workflow, an approval decided already, a run that ended). */
export class ConflictError extends ChainflowError {
  readonly code = 'conflict' as const;
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * A write of a run by an engine process whose lease on it was taken over (it stalled past its TTL, or was cut off
 * from the database): the fencing token it holds is no longer the run's, so its write is refused and it must drive
 * nothing more of that run (CONTRACT 8.7).
 */
export class LeaseLostError extends ChainflowError {
  readonly code = 'conflict' as const;
  /** `unscheduled`: the run left the schedule meanwhile (it ended elsewhere, a cancel), rather than another driver taking it. */
  constructor(readonly runId: string, readonly fence: number, readonly unscheduled = false) {
    super(`run ${runId}: the lease with fencing token ${fence} is no longer held${unscheduled ? ' (the run left the schedule)' : ''}`);
  }
}

/** Credentials (a token, a webhook signature) missing or wrong. */
export class UnauthorizedError extends ChainflowError {
  readonly code = 'unauthorized' as const;
  constructor(reason = 'unauthorized') {
    super(reason);
  }
}

/**
 * The storage failed (disk full, database locked or unreachable, a statement refused). One line saying what
 * failed and where, never the statement or its values (which hold journal data, secrets among it).
 */
export class StorageError extends ChainflowError {
  readonly code = 'storage_failed' as const;
  /**
   * `driverCode`: the driver's error code (SQLITE_BUSY, a SQLSTATE), for the storage adapter's retries.
   * `transient`: the database was locked, unreachable or busy, and the same statement may well pass later (the
   * engine retries such failures with backoff, CONTRACT 8.7); a refused statement (a constraint, the schema) is not.
   */
  constructor(readonly operation: string, readonly reason: string, readonly driverCode?: string, readonly transient = false) {
    super(`storage: ${operation} failed: ${reason}`);
  }
}

/**
 * A secret-typed setting the command needs refers to an environment variable that is not set (or empty).
 * `at`: the config path; `variable`: the variable's name. Never the value (there is none).
 */
export class SecretMissingError extends ChainflowError {
  readonly code = 'secret_missing' as const;
  constructor(readonly missing: ReadonlyArray<{ readonly at: string; readonly variable: string; readonly empty?: boolean }>, readonly purpose: string) {
    super(`${purpose} needs ${missing.map((m) => `${m.at} (environment variable ${m.variable} is ${m.empty ? 'empty' : 'not set'})`).join(', ')}`);
  }
}
