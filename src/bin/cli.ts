import 'reflect-metadata';
import { join } from 'node:path';
import { flush, handle, run } from '@oclif/core';

/** The `chainflow` program (oclif). */
export function main(argv: string[]): void {
  run(argv, join(__dirname, '..', '..', '..'))
    .then(() => flush())
    .catch((err: unknown) => handle(err as Error));
}
