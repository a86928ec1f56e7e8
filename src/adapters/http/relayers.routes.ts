import type { ListRelayers } from '../../application/relayers/list-relayers.use-case';
import type { ListTopups } from '../../application/relayers/list-topups.use-case';
import { envelope, ERROR, RELAYER_ROW, TOPUP_ITEM } from './api-schemas';
import type { RouteTable } from './route-table';
import { sendJson } from './json-body';

/** The use cases behind the relayers API. */
export interface RelayersUseCases {
  readonly listRelayers: ListRelayers;
  readonly listTopups: ListTopups;
}

type Query = Record<string, unknown>;

const BAD_INPUT = { 400: { description: 'a parameter is unknown, repeated or malformed (named in `error`)', schema: ERROR } };

/**
 * `GET /api/relayers` (the address book) and `GET /api/relayers/topups` (the top-up audit trail), mounted at `/api`:
 * parse, call one use case, answer JSON.
 */
export function relayersRoutes(routes: RouteTable, uc: RelayersUseCases): ReturnType<RouteTable['router']>['express'] {
  const router = routes.router('/api');
  router.get('/relayers', {
    summary: 'The relayers\' address book: address, live balance, low flag, recent gas spend, funding estimate and shortfall', tag: 'relayers',
    security: 'api', query: uc.listRelayers.params,
    responses: { 200: { description: 'one page of configured relayers, by name (list envelope)', schema: envelope(RELAYER_ROW) }, ...BAD_INPUT },
  }, async (req, res) => {
    sendJson(res, await uc.listRelayers.execute(req.query as Query));
  });
  router.get('/relayers/topups', {
    summary: 'The top-up audit trail: every attempt, landed or not, newest first', tag: 'relayers', security: 'api', query: uc.listTopups.params,
    responses: { 200: { description: 'one page, newest first (list envelope)', schema: envelope(TOPUP_ITEM) }, ...BAD_INPUT },
  }, async (req, res) => {
    sendJson(res, await uc.listTopups.execute(req.query as Query));
  });
  return router.express;
}
