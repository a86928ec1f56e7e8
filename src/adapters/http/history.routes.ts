import { Router } from 'express';
import type { GetRunTimeline } from '../../application/history/get-run-timeline.use-case';
import type { ListRuns } from '../../application/history/list-runs.use-case';

/** The read-only history API: parse, call one use case, answer JSON. */
export function historyRoutes(deps: { listRuns: ListRuns; getRunTimeline: GetRunTimeline }): Router {
  const router = Router();
  router.get('/runs', async (req, res) => {
    res.json(await deps.listRuns.execute(req.query as Record<string, unknown>));
  });
  router.get('/runs/:id/timeline', async (req, res) => {
    res.json(await deps.getRunTimeline.execute(req.params.id));
  });
  return router;
}
