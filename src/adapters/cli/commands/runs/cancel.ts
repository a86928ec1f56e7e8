import { Args, Flags } from '@oclif/core';
import { CancelRun } from '../../../../application/engine/cancel-run.use-case';
import { ChainflowCommand } from '../../base.command';
import { osUser } from '../run';

/** `chainflow runs cancel RUN_ID`: ends a running or parked run `cancelled`. */
export default class RunsCancel extends ChainflowCommand {
  static override summary = 'Cancel a running or parked run';
  static override args = { 'run-id': Args.string({ required: true, description: 'run id' }) };
  static override flags = {
    by: Flags.string({ description: 'who cancels (default: the OS user)' }),
    json: Flags.boolean({ description: 'print the result as JSON' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RunsCancel);
    const root = await this.root(flags.config);
    const done = await root.container.get(CancelRun).execute(args['run-id'], flags.by ?? osUser());
    this.log(flags.json ? JSON.stringify(done) : `run ${done.run_id} cancelled`);
  }
}
