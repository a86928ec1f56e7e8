import { DIFF_PARAMS, type DiffRuns } from '../../application/history/diff-runs.use-case';
import { EXPORT_PARAMS, type ExportHistory } from '../../application/history/export-history.use-case';
import type { GetRunTimeline } from '../../application/history/get-run-timeline.use-case';
import type { ListApprovals } from '../../application/history/list-approvals.use-case';
import type { ListReorgs } from '../../application/history/list-reorgs.use-case';
import type { ListReplays } from '../../application/history/list-replays.use-case';
import type { ListRuns } from '../../application/history/list-runs.use-case';
import type { ListSends } from '../../application/history/list-sends.use-case';
import type { ListWaiting } from '../../application/history/list-waiting.use-case';
import type { ListWorkflows } from '../../application/history/list-workflows.use-case';
import type { ParamSpecs } from '../../application/query/query-params';
import { StreamSink } from '../stream-sink';
import { encodedStream } from './compressed-stream';
import { sendJson, sendJsonText } from './json-body';
import {
  APPROVAL_ITEM, envelope, ERROR, REORG_ITEM, REPLAY_ITEM, RUN_DIFF, RUN_ITEM, SEND_ATTEMPT, TIMELINE, WAITING_ITEM, WORKFLOW_ROW,
} from './api-schemas';
import type { JsonSchema, RouteTable } from './route-table';

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
type PagedList = {
  readonly params: ParamSpecs;
  execute(query: Query): Promise<unknown>;
  /** The same page as JSON text, where the use case reads it from items the storage renders. */
  executeJson?(query: Query): Promise<string>;
};

const BAD_INPUT = { 400: { description: 'a parameter is unknown, repeated or malformed (named in `error`)', schema: ERROR } };

/** The read-only history API (mounted at `/api/history`): parse, call one use case, answer JSON. */
export function historyRoutes(routes: RouteTable, uc: HistoryUseCases): ReturnType<RouteTable['router']>['express'] {
  const router = routes.router('/api/history');
  const list = (path: string, summary: string, useCase: PagedList, item: JsonSchema): void => {
    router.get(path, {
      summary, tag: 'history', security: 'api', query: useCase.params,
      responses: { 200: { description: 'one page, newest first (list envelope)', schema: envelope(item) }, ...BAD_INPUT },
    }, async (req, res) => {
      if (useCase.executeJson) sendJsonText(res, await useCase.executeJson(req.query as Query));
      else sendJson(res, await useCase.execute(req.query as Query));
    });
  };
  list('/runs', 'Runs, filtered by any run filter', uc.listRuns, RUN_ITEM);
  router.get('/runs/:id/timeline', {
    summary: 'One run chronologically: { run, events }', tag: 'history', security: 'api',
    pathParams: { id: { kind: 'id', description: 'run id' } },
    responses: { 200: { description: 'the run and its events', schema: TIMELINE }, ...BAD_INPUT, 404: { description: 'run not found', schema: ERROR } },
  }, async (req, res) => {
    sendJson(res, await uc.getRunTimeline.execute(req.params.id as string));
  });
  list('/txs', 'Send attempts (queued, parked, submitted, settled)', uc.listSends, SEND_ATTEMPT);
  list('/approvals', 'Approvals, pending and decided', uc.listApprovals, APPROVAL_ITEM);
  list('/waiting', 'Runs parked now', uc.listWaiting, WAITING_ITEM);
  list('/reorgs', 'on_reorg responses and their steps', uc.listReorgs, REORG_ITEM);
  list('/replays', 'Replay and test sessions with their run counts', uc.listReplays, REPLAY_ITEM);
  list('/workflows', 'The workflows overview', uc.listWorkflows, WORKFLOW_ROW);
  router.get('/diff', {
    summary: 'What differs between two runs (as `chainflow runs diff`)', tag: 'history', security: 'api', query: DIFF_PARAMS,
    responses: { 200: { description: 'the comparison, of redacted timelines', schema: RUN_DIFF }, ...BAD_INPUT, 404: { description: 'run not found', schema: ERROR } },
  }, async (req, res) => {
    sendJson(res, await uc.diffRuns.fromQuery(req.query as Query));
  });
  router.get('/export', {
    summary: 'The redacted audit export of the filtered runs', tag: 'history', security: 'api', query: EXPORT_PARAMS,
    responses: {
      200: { description: 'json: { runs, steps, sends, approvals, failures }; csv: one row per run, a header row first', contentType: 'application/json, text/csv' },
      ...BAD_INPUT,
    },
  }, async (req, res) => {
    // Bad input is refused before the first byte; after it, a failure can only cut the stream short.
    const { filter, format } = uc.exportHistory.parse(req.query as Query);
    res.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="chainflow-history.${format}"`);
    const sink = new StreamSink(encodedStream(req, res));
    try {
      await uc.exportHistory.execute(filter, format, sink);
      await sink.end();
    } catch (err) {
      res.destroy(err as Error);
    }
  });
  return router.express;
}
