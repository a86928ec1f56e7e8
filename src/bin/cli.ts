import 'reflect-metadata';
import { join } from 'node:path';
import { Errors, flush, run } from '@oclif/core';
import { describeFailure, EXIT_USAGE } from '../adapters/cli/cli-errors';

export { COMMANDS } from '../adapters/cli/commands';

/**
 * The `chainflow` program (oclif). `root` is the package folder (where package.json names the commands).
 * The build bundles this entry point into dist/chainflow.js so that a cold start loads one file.
 */
export function main(argv: string[], root = join(__dirname, '..')): void {
  run(argv, root)
    .then(() => flush())
    .catch((err: unknown) => fail(err));
}

/**
 * Errors that end the program outside a command (a command's own errors are mapped by ChainflowCommand):
 * an unknown command, a plugin that fails to load. One line on stderr, never a stack trace.
 */
function fail(err: unknown): void {
  // As oclif's own handler: the process ends here, whatever handles are still open (stdout and stderr are
  // synchronous for files and pipes, so nothing written is lost).
  if (err instanceof Errors.ExitError) process.exit(err.oclif.exit ?? 1);
  const notFound = /^command (\S+) not found/.exec(err instanceof Error ? err.message : '');
  const failure = notFound
    ? { message: `Error: command '${notFound[1]!.replace(/:/g, ' ')}' not found (see chainflow --help)`, exitCode: EXIT_USAGE }
    : describeFailure(err);
  process.stderr.write(`${failure.message}\n`);
  process.exit(failure.exitCode);
}
