import { ChainflowError, InvalidConfigError, InvalidInputError, NotFoundError } from '../../domain/errors';

/** Exit codes (docs/decisions.md, CLI): 1 for a failure, 2 for bad flags or arguments (CONTRACT section 6). */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** What the program prints for a failed command, and how it exits. */
export interface CliFailure {
  /** One line (a bad config: a heading, then one line per problem, each naming its path). */
  readonly message: string;
  readonly exitCode: number;
}

/** The flags and arguments of the command that failed, to say what a missing one is for. */
export interface CommandShape {
  readonly id?: string;
  readonly flags?: Readonly<Record<string, { readonly description?: string } | undefined>>;
  readonly args?: Readonly<Record<string, { readonly description?: string } | undefined>>;
}

type OclifError = Error & { oclif?: { exit?: number }; args?: Array<{ name?: string; description?: string }>; code?: unknown };

const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOSPC: 'the disk is full',
  EROFS: 'read-only file system',
  EMFILE: 'too many open files',
  EPIPE: 'the output was closed',
};

/**
 * Turns any error a command can end with into one line and an exit code: typed errors by their code, oclif's
 * parse errors by their reason (naming the flag or argument), file errors by the file. Never a stack trace, never
 * a multi-line help dump.
 */
export function describeFailure(err: unknown, command: CommandShape = {}): CliFailure {
  if (err instanceof InvalidInputError) return { message: `Error: ${named(err.field, err.reason, command)}`, exitCode: EXIT_USAGE };
  if (err instanceof InvalidConfigError) return { message: err.message, exitCode: EXIT_FAILURE };
  if (err instanceof NotFoundError && err.field) return { message: `Error: ${named(err.field, err.message, command)}`, exitCode: EXIT_FAILURE };
  if (err instanceof ChainflowError) return { message: `Error: ${err.message}`, exitCode: EXIT_FAILURE };
  const e = (err ?? {}) as OclifError & { path?: unknown; syscall?: unknown };
  if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code) && typeof e.path === 'string') {
    return { message: `Error: ${e.path}: ${ERRNO_WORDS[e.code] ?? e.code.toLowerCase()}`, exitCode: EXIT_FAILURE };
  }
  if (e.oclif) return { message: `Error: ${usageReason(e, command)}`, exitCode: EXIT_USAGE };
  return { message: `Error: ${firstLine(e.message ?? String(err))}`, exitCode: EXIT_FAILURE };
}

/**
 * `<flag or argument>: <reason>`. Use cases name the API's parameter (`tx_hash`); the CLI shows it as the command's
 * flag the user typed (`--tx-hash`) or argument (`run-id`), else as it is.
 */
function named(field: string, reason: string, command: CommandShape): string {
  const name = field.replace(/_/g, '-');
  if (command.flags?.[name]) return `--${name}: ${reason}`;
  return `${command.args?.[name] ? name : field}: ${reason}`;
}

/** oclif's parse errors, in one line naming the flag or argument and what is wrong. */
export function usageReason(err: OclifError, command: CommandShape): string {
  if (Array.isArray(err.args) && /^Missing \d+ required arg/.test(err.message)) {
    const missing = err.args.map((a) => `${a.name ?? 'argument'}${a.description ? ` (${a.description})` : ''}`);
    return `missing argument ${missing.join(', ')}${see(command)}`;
  }
  const lines = plain(err.message).split('\n').map((l) => l.trim()).filter((l) => l && !/^See more help with --help$/.test(l));
  const head = lines[0] ?? 'bad flags or arguments';
  // "The following error(s) occurred:" lists the reasons on the lines below.
  const reasons = /^The following errors? occurred:?$/.test(head) ? lines.slice(1) : [head, ...lines.slice(1)];
  const parsing = /^Parsing --(\S+)$/.exec(head);
  if (parsing) return `--${parsing[1]}: ${lowerFirst(withoutInput(lines[1] ?? 'invalid value'))}`;
  return reasons.map((r) => reason(r, command)).join('; ');
}

function reason(line: string, command: CommandShape): string {
  let m = /^Missing required flag:?\s*-*(\S+)/.exec(line);
  if (m) {
    const description = command.flags?.[m[1]!]?.description;
    return `--${m[1]}: required${description ? ` (${description})` : ''}`;
  }
  m = /^Nonexistent flags?: (.+)$/.exec(line);
  if (m) return `${m[1]}: unknown flag${m[1]!.includes(',') ? 's' : ''}${see(command)}`;
  m = /^Unexpected arguments?: (.+)$/.exec(line);
  if (m) return `unexpected argument${m[1]!.includes(',') ? 's' : ''} ${m[1]}${see(command)}`;
  m = /^Flag --(\S+) (expects a value|can only be specified once|expects one of these values: .+)$/.exec(line);
  if (m) return `--${m[1]}: ${m[2]!.replace('specified', 'given')}`;
  m = /^Expected --([^=\s]+)=.* to be one of: (.+)$/.exec(line);
  if (m) return `--${m[1]}: must be one of ${m[2]}`;
  return lowerFirst(withoutInput(line));
}

const see = (command: CommandShape): string => (command.id ? ` (see chainflow ${command.id.replace(/:/g, ' ')} --help)` : '');
const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);
/** oclif quotes what was typed ("but received: abc"); the reason stands without it. */
const withoutInput = (text: string): string => text.replace(/\s*but received:.*$/i, '');
// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');
const firstLine = (text: string): string => {
  const line = plain(text).split('\n').map((l) => l.trim()).find((l) => l) ?? 'failed';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
};
