import { Router } from 'express';
import type { GetRunTimeline } from '../../application/history/get-run-timeline.use-case';
import type { ListApprovals } from '../../application/history/list-approvals.use-case';
import type { ListReorgs } from '../../application/history/list-reorgs.use-case';
import type { ListReplays } from '../../application/history/list-replays.use-case';
import type { ListRuns } from '../../application/history/list-runs.use-case';
import type { ListSends } from '../../application/history/list-sends.use-case';
import type { ListWaiting } from '../../application/history/list-waiting.use-case';
import type { ListWorkflows } from '../../application/history/list-workflows.use-case';

/** The use cases behind the history API. */
export interface HistoryUseCases {
  readonly listRuns: ListRuns;
  readonly getRunTimeline: GetRunTimeline;
  readonly listSends: ListSends;
  readonly listApprovals: ListApprovals;
  readonly listWaiting: ListWaiting;
  readonly listReorgs: ListReorgs;
  readonly listReplays: ListReplays;
  readonly listWorkflows: ListWorkflows;
}

type Query = Record<string, unknown>;

/** The read-only history API: parse, call one use case, answer JSON. */
export function historyRoutes(uc: HistoryUseCases): Router {
  const router = Router();
  const list = (path: string, useCase: { execute(query: Query): Promise<unknown> }): void => {
    router.get(path, async (req, res) => {
      res.json(await useCase.execute(req.query as Query));
    });
  };
  list('/runs', uc.listRuns);
  router.get('/runs/:id/timeline', async (req, res) => {
    res.json(await uc.getRunTimeline.execute(req.params.id));
  });
  list('/txs', uc.listSends);
  list('/approvals', uc.listApprovals);
  list('/waiting', uc.listWaiting);
  list('/reorgs', uc.listReorgs);
  list('/replays', uc.listReplays);
  list('/workflows', uc.listWorkflows);
  return router;
}
