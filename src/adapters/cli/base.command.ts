import { Command, Errors, Flags } from '@oclif/core';
import type { Root, RootOptions, StorageCopy } from '../../bin/root';
import { describeFailure } from './cli-errors';

export { EXIT_FAILURE, EXIT_USAGE } from './cli-errors';

/**
 * Every chainflow command: `--config`, the composition root on demand, and one place that maps typed
 * errors to a one-line message and an exit code (never a stack trace).
 */
export abstract class ChainflowCommand extends Command {
  static override baseFlags = {
    config: Flags.string({ description: 'config file (default ./chainflow.yaml, or $CHAINFLOW_CONFIG)', helpGroup: 'GLOBAL' }),
  };

  private opened: Root | undefined;

  /** Opens the composition root (config, storage, container) once per command. */
  protected async root(configPath: string | undefined, profile: NonNullable<RootOptions['profile']> = 'tool', logger?: RootOptions['logger']): Promise<Root> {
    if (!this.opened) {
      // Loaded lazily so that `--help` and flag errors do not pay for the storage.
      const { openRoot } = await import('../../bin/root');
      this.opened = await openRoot({ configPath, profile, ...(logger ? { logger } : {}) });
    }
    return this.opened;
  }

  /** `chainflow storage copy`: both ends of a copy, from the root (they are not the config's storage). */
  protected async storageCopy(from: string, to: string, password?: string): Promise<StorageCopy> {
    const { openStorageCopy } = await import('../../bin/root');
    return openStorageCopy(from, to, password);
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await this.opened?.close();
    return super.finally(err);
  }

  protected override async catch(err: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err;
    if (err.oclif?.exit === 0) return;
    const failure = describeFailure(err, { id: this.id, flags: this.ctor.flags, args: this.ctor.args });
    return this.fail(failure.message, failure.exitCode);
  }

  private fail(message: string, code: number): never {
    process.stderr.write(`${message}\n`);
    process.exitCode = code;
    return this.exit(code);
  }
}

/** Flags shared by every list command (CONTRACT section 6). */
export const listFlags = {
  json: Flags.boolean({ description: 'print the API shape { items, cursor, has_more }' }),
  limit: Flags.string({ description: 'page size, 1 to 500 (default 50)' }),
  cursor: Flags.string({ description: 'cursor from the previous page' }),
};

/** Turns `--tx-hash` style flags into the API's `tx_hash` parameter names, dropping unset ones. */
export function toQuery(flags: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const name of names) {
    const value = flags[name];
    if (value !== undefined) query[name.replace(/-/g, '_')] = value;
  }
  return query;
}
