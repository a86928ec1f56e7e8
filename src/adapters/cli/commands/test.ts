import { Args, Flags } from '@oclif/core';
import { IDEMPOTENCY_KEY_HELP, StartsRun } from './run';

/** `chainflow test WF [--input JSON] [--idempotency-key K]`: the same as `run`, in a new test session (sends never broadcast). */
export default class Test extends StartsRun {
  static override summary = 'Run a workflow in a new test session (sends are simulated, never broadcast)';
  static override args = { workflow: Args.string({ required: true, description: 'workflow name' }) };
  static override flags = {
    input: Flags.string({ description: 'the run\'s payload, as JSON' }),
    'idempotency-key': Flags.string({ description: IDEMPOTENCY_KEY_HELP }),
    json: Flags.boolean({ description: 'print the run item as the API does' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Test);
    await this.runWorkflow(args.workflow, flags, 'test');
  }
}
