import 'reflect-metadata';
import { join } from 'node:path';
import { flush, handle, run } from '@oclif/core';

export { COMMANDS } from '../adapters/cli/commands';

/**
 * The `chainflow` program (oclif). `root` is the package folder (where package.json names the commands).
 * The build bundles this entry point into dist/chainflow.js so that a cold start loads one file.
 */
export function main(argv: string[], root = join(__dirname, '..')): void {
  run(argv, root)
    .then(() => flush())
    .catch((err: unknown) => handle(err as Error));
}
