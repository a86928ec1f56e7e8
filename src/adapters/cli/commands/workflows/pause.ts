import { Args, Flags } from '@oclif/core';
import { SetWorkflowPaused } from '../../../../application/engine/workflow-controls.use-case';
import { ChainflowCommand } from '../../base.command';

/** `chainflow workflows pause WF` (and `resume`, its subclass). */
export default class WorkflowsPause extends ChainflowCommand {
  static override summary = 'Pause a workflow: it starts no run (its started runs go on)';
  static override args = { workflow: Args.string({ required: true, description: 'workflow name' }) };
  static override flags = { json: Flags.boolean({ description: 'print the new state as JSON' }) };

  protected readonly paused: boolean = true;

  async run(): Promise<void> {
    const { args, flags } = await this.parse(this.constructor as typeof WorkflowsPause);
    const root = await this.root(flags.config);
    const state = await root.container.get(SetWorkflowPaused).execute(args.workflow, this.paused);
    this.log(flags.json ? JSON.stringify(state) : `workflow ${state.workflow} ${state.paused ? 'paused' : 'resumed'}`);
  }
}
