/**
 * oclif parses a command's arguments from a spread of its class (`{ ...Command }`), which copies own properties
 * only (flags it reads by name): a command that inherits its `args` from another command's class would parse as if
 * it took none (`workflows resume WF` and `approvals reject ID` answered "unexpected argument"). Every command
 * must own the arguments it takes.
 */
import { COMMANDS } from '../../../src/adapters/cli/commands';

describe('CLI commands', () => {
  it.each(Object.entries(COMMANDS))('%s owns the arguments it takes', (_id, command) => {
    const spread = { ...(command as unknown as Record<string, unknown>) } as { args?: object };
    const args = (command as unknown as { args?: object }).args;
    expect(Object.keys(spread.args ?? {})).toEqual(Object.keys(args ?? {}));
  });
});
