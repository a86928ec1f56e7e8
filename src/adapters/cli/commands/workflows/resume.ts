import WorkflowsPause from './pause';

/** `chainflow workflows resume WF`. */
export default class WorkflowsResume extends WorkflowsPause {
  static override summary = 'Resume a paused workflow';
  protected override readonly paused = false;
}
