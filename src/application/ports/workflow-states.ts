/** The journal's word on a workflow's trigger state (`workflow.state` events): its pause, and for events its blocks. */
export interface WorkflowStates {
  /** Whether the workflow is paused now; undefined when the journal never said. */
  paused(workflow: string): Promise<boolean | undefined>;
  /** An event trigger's last block read (`cursorBlock`) and the head it last saw; undefined when the journal never said. */
  blocks(workflow: string): Promise<{ cursorBlock: number | null; headBlock: number | null } | undefined>;
}
export const WorkflowStates = Symbol('WorkflowStates');
