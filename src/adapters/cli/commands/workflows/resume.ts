import WorkflowsPause from './pause';

/** `chainflow workflows resume WF`. */
export default class WorkflowsResume extends WorkflowsPause {
  // oclif reads a command's options as own properties (it spreads the class): inherited ones would be lost.
  static override args = WorkflowsPause.args;
  static override flags = WorkflowsPause.flags;
  static override summary = 'Resume a paused workflow';
  protected override readonly paused = false;
}
