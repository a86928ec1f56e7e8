import type { Reducers } from './fold';

/** Reorg responses: journaled against the run the reorg affected, finished or not (CONTRACT 8.6). */
export const REORG_REDUCERS: Pick<Reducers, 'reorg.response' | 'reorg.step'> = {
  'reorg.response': (f, e) => {
    f.run(e.run_id);
    if (f.ws.reorgs.has(e.reorg_id)) f.refuse('reorg_id: this reorg is already recorded (a reorg.response with other content)');
    f.ws.reorgs.set(e.reorg_id, {
      reorgId: e.reorg_id, runId: e.run_id, workflow: e.workflow, network: e.network, block: e.block,
      removedBlockHash: e.removed_block_hash ?? null, depth: e.depth ?? null, createdAt: f.at, steps: [],
    });
    f.ch.reorgs.add(e.reorg_id);
  },
  'reorg.step': (f, e) => {
    // The projector resolved the reorg before (it names the event's stream).
    const reorg = f.ws.reorgs.get(e.reorg_id)!;
    reorg.steps.push({ stepId: e.step_id, status: e.status, output: e.output ?? null, error: e.error ?? null, at: f.at });
    f.ch.reorgs.add(reorg.reorgId);
  },
};
