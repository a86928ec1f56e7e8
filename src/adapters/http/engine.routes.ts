import express, { Router, type Request } from 'express';
import type { CancelRun } from '../../application/engine/cancel-run.use-case';
import type { DecideApproval } from '../../application/engine/decide-approval.use-case';
import type { StartedRun, StartRunRequest } from '../../application/engine/start-run.use-case';
import type { ListConfiguredWorkflows, SetWorkflowPaused } from '../../application/engine/workflow-controls.use-case';
import { InvalidInputError } from '../../domain/errors';
import type { Json } from '../../domain/journal/journal-event';

/** The engine's use cases behind the API (CONTRACT 8.4). */
export interface EngineUseCases {
  /** Starts a run (the engine of this process takes it at once when it runs; see Engine.submit). */
  readonly startRun: (request: StartRunRequest) => Promise<StartedRun>;
  readonly decideApproval: DecideApproval;
  readonly cancelRun: CancelRun;
  readonly setPaused: SetWorkflowPaused;
  readonly listWorkflows: ListConfiguredWorkflows;
  /** Tells this process's engine (if it runs one) that a run was started or woken. */
  readonly poke: () => void;

}

/** Request bodies of the engine routes: small JSON objects. */
const MAX_BODY = '1mb';

type Body = Record<string, unknown>;

/** Only the named members, each of the named JSON type; anything else is a 400 naming the member. */
function bodyOf(req: Request, allowed: Readonly<Record<string, 'string' | 'any'>>): Body {
  const body: unknown = req.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidInputError('body', 'must be a JSON object');
  for (const [key, value] of Object.entries(body)) {
    const type = Object.hasOwn(allowed, key) ? allowed[key] : undefined;
    if (!type) throw new InvalidInputError(key, 'unknown member');
    if (type === 'string' && typeof value !== 'string') throw new InvalidInputError(key, 'must be a string');
  }
  return body as Body;
}

/** Query parameters are not taken by these routes. */
function noQuery(req: Request): void {
  const [first] = Object.keys(req.query as object);
  if (first !== undefined) throw new InvalidInputError(first, 'unknown parameter');
}

const principal = (res: { locals: Record<string, unknown> }): string => (typeof res.locals.principal === 'string' ? res.locals.principal : 'api');

/** Start, approve/reject, cancel, pause/resume: parse, call one use case, answer JSON. */
export function engineRoutes(uc: EngineUseCases): Router {
  const router = Router();
  router.use(express.json({ limit: MAX_BODY, strict: true, type: () => true }));

  router.get('/workflows', async (req, res) => {
    noQuery(req);
    res.json(await uc.listWorkflows.execute());
  });
  router.post('/workflows/:wf/runs', async (req, res) => {
    noQuery(req);
    const body = bodyOf(req, { input: 'any' });
    const started = await uc.startRun({
      workflow: req.params.wf!, trigger: { kind: 'manual', summary: `manual by ${principal(res)}`, ...(body.input !== undefined ? { payload: body.input as Json } : {}) },
    });
    res.status(202).json({ run_id: started.runId });
  });
  for (const [path, paused] of [['pause', true], ['resume', false]] as const) {
    router.post(`/workflows/:wf/${path}`, async (req, res) => {
      noQuery(req);
      bodyOf(req, {});
      res.json(await uc.setPaused.execute(req.params.wf!, paused));
    });
  }
  router.post('/approvals/:id/decision', async (req, res) => {
    noQuery(req);
    const body = bodyOf(req, { decision: 'string', reason: 'string' });
    const decision = body.decision === 'approve' || body.decision === 'approved' ? 'approved'
      : body.decision === 'reject' || body.decision === 'rejected' ? 'rejected' : undefined;
    if (!decision) throw new InvalidInputError('decision', "must be 'approve' or 'reject'");
    const decided = await uc.decideApproval.execute({
      approvalId: req.params.id!, decision, by: principal(res), ...(body.reason !== undefined ? { reason: body.reason as string } : {}),
    });
    uc.poke();
    res.json(decided);
  });
  router.post('/runs/:id/cancel', async (req, res) => {
    noQuery(req);
    bodyOf(req, {});
    res.json(await uc.cancelRun.execute(req.params.id!, principal(res)));
  });
  return router;
}
