/** The journal's word on a workflow's pause state (`workflow.state` events). */
export interface WorkflowStates {
  /** Whether the workflow is paused now; undefined when the journal never said. */
  paused(workflow: string): Promise<boolean | undefined>;
}
export const WorkflowStates = Symbol('WorkflowStates');
