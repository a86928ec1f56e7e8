import { Args, Flags } from '@oclif/core';
import { ReplayEvents } from '../../../application/engine/replay-events.use-case';
import { InvalidInputError } from '../../../domain/errors';
import { ChainflowCommand } from '../base.command';

/** The API's body members as this command's flags, for messages. */
const FLAG_OF: Readonly<Record<string, string>> = { from_block: '--from-block', to_block: '--to-block' };

/**
 * `chainflow replay WF --from-block A --to-block B [--json]`: the same use case as `POST /api/workflows/:wf/replays`
 * (CONTRACT 8.6), in this process against the configured storage and chain. The session's runs are scheduled for the
 * engine (`chainflow start` or `chainflow worker`), which drives them like any other run.
 */
export default class Replay extends ChainflowCommand {
  static override summary = 'Replay an event workflow\'s logs of a block range in a new replay session (sends simulated, never broadcast)';
  static override args = { workflow: Args.string({ required: true, description: 'workflow name (an event workflow)' }) };
  static override flags = {
    'from-block': Flags.string({ required: true, description: 'first block of the range (inclusive)' }),
    'to-block': Flags.string({ required: true, description: 'last block of the range (inclusive, at most the head)' }),
    json: Flags.boolean({ description: 'print { session_id, run_count } as JSON' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Replay);
    const root = await this.root(flags.config);
    let started;
    try {
      started = await root.container.get(ReplayEvents).execute({ workflow: args.workflow, fromBlock: flags['from-block'], toBlock: flags['to-block'] });
    } catch (err) {
      if (err instanceof InvalidInputError && FLAG_OF[err.field]) throw new InvalidInputError(FLAG_OF[err.field]!, err.reason);
      throw err;
    }
    if (flags.json) {
      this.log(JSON.stringify(started));
      return;
    }
    this.log(`replay session ${started.session_id}: ${started.run_count} run${started.run_count === 1 ? '' : 's'}, driven by the engine (chainflow start or worker)`);
    this.log(started.session_id);
  }
}
