import { Router } from 'express';
import type { ListRelayers } from '../../application/relayers/list-relayers.use-case';
import type { ListTopups } from '../../application/relayers/list-topups.use-case';

/** The use cases behind the relayers API. */
export interface RelayersUseCases {
  readonly listRelayers: ListRelayers;
  readonly listTopups: ListTopups;
}

type Query = Record<string, unknown>;

/** `GET /api/relayers` (the address book) and `GET /api/relayers/topups` (the top-up audit trail): parse, call one use case, answer JSON. */
export function relayersRoutes(uc: RelayersUseCases): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    res.json(await uc.listRelayers.execute(req.query as Query));
  });
  router.get('/topups', async (req, res) => {
    res.json(await uc.listTopups.execute(req.query as Query));
  });
  return router;
}
