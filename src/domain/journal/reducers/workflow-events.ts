import type { Reducers } from './fold';

/** The engine's word on a workflow's trigger state: each field given overrides the last. */
export const WORKFLOW_REDUCERS: Pick<Reducers, 'workflow.state'> = {
  'workflow.state': (f, e) => {
    const wf = f.ws.workflows.get(e.workflow) ?? {
      workflow: e.workflow, paused: null, trigger: null, network: null, cursorBlock: null, headBlock: null, updatedAt: f.at,
    };
    if (e.paused !== undefined) wf.paused = e.paused;
    if (e.trigger !== undefined) wf.trigger = e.trigger;
    if (e.network !== undefined) wf.network = e.network;
    if (e.cursor_block !== undefined) wf.cursorBlock = e.cursor_block;
    if (e.head_block !== undefined) wf.headBlock = e.head_block;
    wf.updatedAt = Math.max(wf.updatedAt, f.at);
    f.ws.workflows.set(e.workflow, wf);
    f.ch.workflows.add(e.workflow);
  },
};
