import { Router } from 'express';
import type { DiffRuns } from '../../application/history/diff-runs.use-case';
import type { ExportHistory } from '../../application/history/export-history.use-case';
import type { GetRunTimeline } from '../../application/history/get-run-timeline.use-case';
import type { ListApprovals } from '../../application/history/list-approvals.use-case';
import type { ListReorgs } from '../../application/history/list-reorgs.use-case';
import type { ListReplays } from '../../application/history/list-replays.use-case';
import type { ListRuns } from '../../application/history/list-runs.use-case';
import type { ListSends } from '../../application/history/list-sends.use-case';
import type { ListWaiting } from '../../application/history/list-waiting.use-case';
import type { ListWorkflows } from '../../application/history/list-workflows.use-case';
import { StreamSink } from '../stream-sink';

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
  readonly exportHistory: ExportHistory;
  readonly diffRuns: DiffRuns;
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
  router.get('/diff', async (req, res) => {
    res.json(await uc.diffRuns.fromQuery(req.query as Query));
  });
  router.get('/export', async (req, res) => {
    // Bad input is refused before the first byte; after it, a failure can only cut the stream short.
    const { filter, format } = uc.exportHistory.parse(req.query as Query);
    res.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="chainflow-history.${format}"`);
    const sink = new StreamSink(res);
    try {
      await uc.exportHistory.execute(filter, format, sink);
      await sink.end();
    } catch (err) {
      res.destroy(err as Error);
    }
  });
  return router;
}
